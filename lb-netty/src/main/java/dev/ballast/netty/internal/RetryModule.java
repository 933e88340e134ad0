package dev.ballast.netty.internal;

import dev.ballast.core.Ticker;
import dev.ballast.netty.Classification;
import dev.ballast.netty.Role;
import dev.ballast.netty.error.RequestRefusedException;
import dev.ballast.netty.retry.RetryBudget;
import dev.ballast.netty.retry.RetryPolicy;
import io.netty.channel.EventLoopGroup;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import java.util.random.RandomGenerator;

/**
 * The retry module: when a call's last running attempt failed, it asks the {@link RetryPolicy}
 * (retryable? attempts left? the backoff, at least the server's {@code Retry-After}) and the
 * {@link RetryBudget}, and starts the next attempt, now or after the wait; else the failed
 * attempt decides the call. Every call deposits in the budget as it starts. An attempt the
 * server refused unprocessed ({@link RequestRefusedException}: it cost the server nothing) is
 * retried at once, outside the budget and the policy's count, up to {@link
 * RequestRefusedException#FREE_RETRIES} times per call (as gRPC's transparent retries).
 *
 * <p>In the chain it is entered once per call and sends each try down to the module below it
 * (the hedging module's, or the balancer's); it hears every attempt's outcome on its way up.
 */
final class RetryModule<Req, Rep> extends CallLayer<Req, Rep> {

  private final Ticker ticker;
  private final EventLoopGroup group;
  private final AtomicBoolean closed;
  private final ClientMetrics metrics;
  private final RetryPolicy policy;
  private final RandomGenerator random;
  private final LongAdder retries = new LongAdder();

  RetryModule(RetryPolicy policy, RandomGenerator random, Ticker ticker, EventLoopGroup group,
      AtomicBoolean closed, ClientMetrics metrics) {
    super(Role.RETRY);
    this.ticker = ticker;
    this.group = group;
    this.closed = closed;
    this.metrics = metrics;
    this.policy = policy;
    this.random = random;
  }

  RetryBudget budget() {
    return policy.budget();
  }

  long retries() {
    return retries.sum();
  }

  /** The call deposits in the budget (at its start, on the client's ticker) and goes on. */
  @Override
  void enter(Call<Req, Rep> call) {
    RetryBudget budget = policy.budget();
    if (budget.ticker() == ticker) {
      budget.depositAt(call.start); // the call's clock reading serves
    } else {
      budget.deposit();
    }
    pass(call);
  }

  /** When the call's last running attempt failed: retries it (false), or lets it go up. */
  @Override
  boolean answered(Attempt<Req, Rep> failed, int live) {
    Classification c = failed.classification();
    if (c.isSuccess() || live != 0 || failed.call.isDecided()) {
      return true;
    }
    Call<Req, Rep> call = failed.call;
    if (failed.failure instanceof RequestRefusedException
        && call.refusals < RequestRefusedException.FREE_RETRIES && !closed.get()
        && policy.isRetryable(failed, c) && call.remainingNanos() > 0) {
      call.refusals++; // only the failed last attempt's thread gets here
      retries.increment();
      metrics.retry();
      pass(call);
      return false;
    }
    int tries = call.attempts - call.hedges - call.refusals;
    if (tries < policy.maxAttempts() && !closed.get() && policy.isRetryable(failed, c)) {
      long delay = Math.max(policy.backoff().delayNanos(tries, random), c.retryAfterNanos());
      if (call.remainingNanos() > delay) {
        if (policy.budget().tryWithdraw()) {
          retries.increment();
          metrics.retry();
          if (delay <= 0) {
            pass(call);
            return false;
          }
          try {
            group.next().schedule(() -> pass(call), delay, TimeUnit.NANOSECONDS);
            return false;
          } catch (RejectedExecutionException e) {
            // the event loops are shut down: no retry can run
          }
        }
        metrics.budgetExhausted();
      }
    }
    return true; // the failed attempt decides the call
  }
}
