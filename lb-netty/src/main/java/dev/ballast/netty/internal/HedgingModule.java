package dev.ballast.netty.internal;

import dev.ballast.core.Ticker;
import dev.ballast.netty.Role;
import dev.ballast.netty.retry.Hedging;
import dev.ballast.netty.retry.RetryBudget;
import io.netty.channel.EventLoopGroup;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

/**
 * The hedging module (see {@link Hedging}): arms a timer when an idempotent call's first attempt
 * starts; when the timer fires while that call still waits for an answer and has never been
 * hedged, it starts a second attempt on a different endpoint if the hedge budget allows. Timers
 * are entries of a timing wheel swept every millisecond on a shared timer (of the client's
 * ticker, so tests move time themselves); the percentile delay is recomputed every 100 ms.
 *
 * <p>In the chain it is entered once per try (the first attempt, each retry) and sends the try
 * down to the balancer's module; a hedge goes down from here too. On the way up, the call's
 * outcome removes its timer.
 */
final class HedgingModule<Req, Rep> extends CallLayer<Req, Rep>
    implements BalancerModule.HedgeGate {

  private static final long TICK_NANOS = TimeUnit.MILLISECONDS.toNanos(1);
  private static final long PERCENTILE_EVERY_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

  /** A call's hedge timer. */
  static final class Timer extends DeadlineWheel.Entry {
    final Call<?, ?> call;

    Timer(Call<?, ?> call, long at) {
      super(at);
      this.call = call;
    }
  }

  private final ClientMetrics metrics;
  private final Hedging config;
  private final long fixedDelayNanos; // or -1 for a percentile
  private final Ticker ticker;
  private final RetryBudget budget;
  private final LatencyWindow window; // null for a fixed delay
  private final DeadlineWheel<Timer> timers;
  private final LongAdder sent = new LongAdder();
  private final LongAdder won = new LongAdder();
  private long lastPercentile;
  private SharedSweeper.Registration sweeper;

  HedgingModule(Hedging config, Ticker ticker, ClientMetrics metrics) {
    super(Role.HEDGING);
    this.fixedDelayNanos = config.delay() == null ? -1 : Durations.nanos(config.delay());
    this.metrics = metrics;
    this.config = config;
    this.ticker = ticker;
    this.budget = RetryBudget.create(Duration.ofSeconds(10), 0, config.budget(), ticker);
    long now = ticker.nanoTime();
    this.window = fixedDelayNanos >= 0 ? null
        : new LatencyWindow(config.percentile(), TimeUnit.SECONDS.toNanos(10), now);
    this.timers = new DeadlineWheel<>(TICK_NANOS, 1024, now);
    this.lastPercentile = now;
  }

  void start(EventLoopGroup group) {
    sweeper = SharedSweeper.register(group.next(), TICK_NANOS, this::sweep);
  }

  void stop() {
    sweeper.close();
  }

  long sent() {
    return sent.sum();
  }

  long won() {
    return won.sum();
  }

  /**
   * A try goes down: a call's first deposits in the hedge budget and arms the timer (idempotent
   * calls only); its attempt starts.
   */
  @Override
  void enter(Call<Req, Rep> call) {
    if (call.attempts == 0 && call.hedgeTimer == null) {
      budget.depositAt(call.start);
      // the first attempt starts as the call does, or, after call filters, now
      arm(call, call.core == null ? call.start : ticker.nanoTime());
    }
    pass(call);
  }

  /** Returns the delay a call starting now gets, or -1 for none (no percentile yet). */
  long delayNanos() {
    return window == null ? fixedDelayNanos : window.percentileNanos();
  }

  // Arms the timer of an idempotent call whose first attempt starts at start.
  private void arm(Call<Req, Rep> call, long start) {
    if (!call.idempotent) {
      return;
    }
    long delay = delayNanos();
    if (delay < 0 || start + delay - call.deadline >= 0) {
      return;
    }
    Timer t = new Timer(call, start + delay);
    call.hedgeTimer = t;
    timers.add(t);
  }

  /** Takes a hedge from the budget, once the balancer found a different endpoint for it. */
  @Override
  public boolean tryHedge() {
    if (!budget.tryWithdraw()) {
      return false;
    }
    sent.increment();
    metrics.hedge();
    return true;
  }

  /** The call was decided: its timer goes, and a success counts for the percentile. */
  @Override
  boolean leave(Call<Req, Rep> call) {
    Timer t = call.hedgeTimer;
    if (t != null) {
      timers.remove(t);
    }
    Attempt<Req, Rep> by = call.decidedBy();
    if (by == null || !call.succeeded()) {
      return true;
    }
    if (window != null) {
      window.record(ticker.nanoTime() - call.start);
    }
    if (by.hedge) {
      won.increment();
      metrics.hedgeWon();
    }
    return true;
  }

  @SuppressWarnings("unchecked")
  private void sweep() {
    long now = ticker.nanoTime();
    timers.sweep(now, t -> fire((Call<Req, Rep>) t.call));
    if (window != null && now - lastPercentile >= PERCENTILE_EVERY_NANOS) {
      lastPercentile = now;
      window.update(now);
    }
  }

  private void fire(Call<Req, Rep> call) {
    if (!call.isDecided() && call.live() > 0 && call.hedges == 0) {
      attempts.start(call, true, this);
    }
  }
}
