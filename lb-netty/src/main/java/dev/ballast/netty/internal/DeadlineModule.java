package dev.ballast.netty.internal;

import dev.ballast.core.Ticker;
import dev.ballast.netty.Role;
import dev.ballast.netty.error.ClientClosedException;
import dev.ballast.netty.error.DeadlineExceededException;
import io.netty.channel.EventLoopGroup;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The deadline module: every call in flight sits in a timing wheel until it ends, and fails with
 * {@link DeadlineExceededException} when its deadline passes; requests whose caller gave up
 * await their late answer in a second wheel until the late-answer wait ends. A sweep every 5 ms
 * over wheels of 1024 buckets (5.12 s per turn; longer deadlines wait in their bucket for later
 * turns), on a timer shared by every client on the same event loop. The first module of the
 * chain: a call enters the wheel on its way down and leaves it on its way up, where the call's
 * latency goes to the metrics.
 */
final class DeadlineModule<Req, Rep> extends CallLayer<Req, Rep> {

  static final long TICK_NANOS = TimeUnit.MILLISECONDS.toNanos(5);

  private final String client;
  private final AtomicBoolean closed;
  private final ClientMetrics metrics;
  private final Ticker ticker;
  private final DeadlineWheel<Call<Req, Rep>> calls;
  private final DeadlineWheel<AttemptWire<Req, Rep>> lateAnswers;
  private SharedSweeper.Registration sweeper;

  DeadlineModule(String client, AtomicBoolean closed, ClientMetrics metrics, Ticker ticker) {
    super(Role.DEADLINE);
    this.client = client;
    this.closed = closed;
    this.metrics = metrics;
    this.ticker = ticker;
    long now = ticker.nanoTime();
    this.calls = new DeadlineWheel<>(TICK_NANOS, 1024, now);
    this.lateAnswers = new DeadlineWheel<>(TICK_NANOS, 1024, now);
  }

  /** Starts sweeping (last in the client's constructor, so that a failed one leaves none). */
  void start(EventLoopGroup group) {
    sweeper = SharedSweeper.register(group.next(), TICK_NANOS, () -> {
      long now = ticker.nanoTime();
      calls.sweep(now, Call::expire);
      lateAnswers.sweep(now, AttemptWire::lateAnswerGivenUp);
    });
  }

  @Override
  void enter(Call<Req, Rep> call) {
    calls.add(call);
    if (closed.get()) {
      call.end(new ClientClosedException("client " + client + " is closed", null, 0, false));
      return;
    }
    pass(call);
  }

  @Override
  boolean leave(Call<Req, Rep> call) {
    calls.remove(call);
    if (metrics != ClientMetrics.NOOP) {
      metrics.call(call.deliveredSuccess(), ticker.nanoTime() - call.start);
    }
    return true;
  }

  /** The attempt's caller gave up; its deadline is set to the end of the late-answer wait. */
  void awaitLateAnswer(AttemptWire<Req, Rep> a) {
    lateAnswers.add(a);
  }

  void lateAnswerHeard(AttemptWire<Req, Rep> a) {
    lateAnswers.remove(a);
  }

  int calls() {
    return calls.size();
  }

  int lateAnswers() {
    return lateAnswers.size();
  }

  /** Stops sweeping and returns the calls still in flight. */
  Iterable<Call<Req, Rep>> stop() {
    sweeper.close();
    return calls.all();
  }

  /** Ends every awaited late answer now. */
  void giveUpLateAnswers() {
    for (AttemptWire<Req, Rep> a : lateAnswers.all()) {
      if (lateAnswers.remove(a)) {
        a.lateAnswerGivenUp();
      }
    }
  }
}
