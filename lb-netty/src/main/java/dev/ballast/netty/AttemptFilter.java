package dev.ballast.netty;

import java.util.concurrent.CompletableFuture;

/**
 * An attempt-level layer of the client stack: it runs for every attempt (retries and hedges
 * included), after the balancer has picked the endpoint and before the connection pool, and sees
 * the {@link AttemptContext}. What it returns is what the {@link ResponseClassifier} classifies.
 * When the call ends without this attempt (its deadline, or another attempt answered first), the
 * future {@code next} returned fails at once with the reason, and what the filter returns after
 * that is ignored.
 *
 * <p>{@code next} sends the request once; calling it again fails. A filter that throws or returns
 * {@code null} fails the attempt.
 *
 * @param <Req> the request type
 * @param <Rep> the response type
 */
@FunctionalInterface
public interface AttemptFilter<Req, Rep> {

  /** Handles one attempt, calling {@code next} at most once. */
  CompletableFuture<Rep> apply(Req request, AttemptContext<Req> ctx, Service<Req, Rep> next);
}
