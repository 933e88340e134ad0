package dev.ballast.netty.retry;

import dev.ballast.netty.AttemptContext;
import dev.ballast.netty.Classification;
import dev.ballast.netty.ResponseClassifier;
import java.time.Duration;
import java.util.Objects;
import java.util.function.BiPredicate;

/**
 * When a failed attempt is tried again, on another endpoint: what is retryable, how long to
 * wait, how many attempts at most, and the {@link RetryBudget} that keeps retries from
 * multiplying the load on a struggling service. A retry is made only when every part agrees,
 * and only when it can start before the call's deadline.
 *
 * <p>Defaults ({@link #defaults()}): 3 attempts (the first included); retry what the {@link
 * ResponseClassifier} calls {@linkplain Classification#isRetryable() retryable}; exponential
 * backoff with full jitter from 25 ms up to 250 ms (Envoy's retry defaults); a new {@link
 * RetryBudget#create()} (Finagle's: 20% of calls, 10 retries per second minimum). Hedges are not
 * retries: {@link Hedging} has its own budget.
 */
public final class RetryPolicy {

  private final int maxAttempts;
  private final BiPredicate<AttemptContext<?>, Classification> retryIf;
  private final Backoff backoff;
  private final RetryBudget budget;

  private RetryPolicy(Builder b) {
    this.maxAttempts = b.maxAttempts;
    this.retryIf = b.retryIf;
    this.backoff = b.backoff;
    this.budget = b.budget != null ? b.budget : RetryBudget.create();
  }

  /** Returns the defaults, with a budget of its own (each call makes a new one). */
  public static RetryPolicy defaults() {
    return builder().build();
  }

  /** Returns the policy that never retries. */
  public static RetryPolicy none() {
    return builder().maxAttempts(1).budget(RetryBudget.none()).build();
  }

  /** Returns a builder holding the defaults. */
  public static Builder builder() {
    return new Builder();
  }

  /** Returns the most attempts per call, the first included. */
  public int maxAttempts() {
    return maxAttempts;
  }

  /** Returns the backoff. */
  public Backoff backoff() {
    return backoff;
  }

  /** Returns the budget. */
  public RetryBudget budget() {
    return budget;
  }

  /** Returns whether the policy allows retrying this failed attempt (budget aside). */
  public boolean isRetryable(AttemptContext<?> attempt, Classification classification) {
    return classification.isRetryable() && retryIf.test(attempt, classification);
  }

  /** Returns a builder holding this policy's settings (and its budget). */
  public Builder toBuilder() {
    return builder().maxAttempts(maxAttempts).retryIf(retryIf).backoff(backoff).budget(budget);
  }

  @Override
  public String toString() {
    return "RetryPolicy{maxAttempts=" + maxAttempts + ", budget=" + budget + "}";
  }

  /** Builds a {@link RetryPolicy}; every setter checks its argument. */
  public static final class Builder {
    private int maxAttempts = 3;
    private BiPredicate<AttemptContext<?>, Classification> retryIf = (a, c) -> true;
    private Backoff backoff =
        Backoff.exponential(Duration.ofMillis(25), Duration.ofMillis(250));
    private RetryBudget budget;

    private Builder() {}

    /** Sets the most attempts per call, the first included; default 3 (1 disables retries). */
    public Builder maxAttempts(int maxAttempts) {
      if (maxAttempts < 1) {
        throw new IllegalArgumentException("maxAttempts: " + maxAttempts + " (expected: > 0)");
      }
      this.maxAttempts = maxAttempts;
      return this;
    }

    /**
     * Narrows what is retried: a failure the classifier calls retryable is retried only when
     * {@code retryIf} also agrees (e.g. only failures that never reached a server); default
     * every retryable failure.
     */
    public Builder retryIf(BiPredicate<AttemptContext<?>, Classification> retryIf) {
      this.retryIf = Objects.requireNonNull(retryIf, "retryIf");
      return this;
    }

    /** Sets the backoff; default exponential with full jitter, 25 ms up to 250 ms. */
    public Builder backoff(Backoff backoff) {
      this.backoff = Objects.requireNonNull(backoff, "backoff");
      return this;
    }

    /** Sets the budget; default a new {@link RetryBudget#create()}. */
    public Builder budget(RetryBudget budget) {
      this.budget = Objects.requireNonNull(budget, "budget");
      return this;
    }

    /** Returns the policy. */
    public RetryPolicy build() {
      return new RetryPolicy(this);
    }
  }
}
