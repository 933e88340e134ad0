package dev.ballast.netty;

import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
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
 */
final class Retries<Req, Rep> {

  private final Stack<Req, Rep> stack;
  private final RetryPolicy policy;
  private final RandomGenerator random;
  private final LongAdder retries = new LongAdder();

  Retries(Stack<Req, Rep> stack, RetryPolicy policy, RandomGenerator random) {
    this.stack = stack;
    this.policy = policy;
    this.random = random;
  }

  RetryBudget budget() {
    return policy.budget();
  }

  long retries() {
    return retries.sum();
  }

  /** A call started at {@code startNanos} on the client's ticker. */
  void callStarted(long startNanos) {
    RetryBudget budget = policy.budget();
    if (budget.ticker() == stack.ticker) {
      budget.depositAt(startNanos); // the call's clock reading serves
    } else {
      budget.deposit();
    }
  }

  /** The call's last running attempt failed: retries it, or lets it decide the call. */
  void attemptFailed(Call<Req, Rep> call, Attempt<Req, Rep> failed, Classification c) {
    if (failed.failure instanceof RequestRefusedException
        && call.refusals < RequestRefusedException.FREE_RETRIES && !stack.isClosed()
        && policy.isRetryable(failed, c) && call.remainingNanos() > 0) {
      call.refusals++; // only the failed last attempt's thread gets here
      retries.increment();
      stack.metrics.retry();
      stack.startAttempt(call, false);
      return;
    }
    int tries = call.attempts - call.hedges - call.refusals;
    if (tries < policy.maxAttempts() && !stack.isClosed() && policy.isRetryable(failed, c)) {
      long delay = Math.max(policy.backoff().delayNanos(tries, random), c.retryAfterNanos());
      if (call.remainingNanos() > delay) {
        if (policy.budget().tryWithdraw()) {
          retries.increment();
          stack.metrics.retry();
          if (delay <= 0) {
            stack.startAttempt(call, false);
            return;
          }
          try {
            stack.group.next().schedule(() -> stack.startAttempt(call, false), delay,
                TimeUnit.NANOSECONDS);
            return;
          } catch (RejectedExecutionException e) {
            // the event loops are shut down: no retry can run
          }
        }
        stack.metrics.budgetExhausted();
      }
    }
    call.decide(failed.response, failed.failure, failed, null);
  }
}
