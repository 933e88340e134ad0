package dev.ballast.netty;

import java.util.Objects;
import java.util.concurrent.CompletableFuture;

/**
 * A call-level layer of the client's chain (after Finagle's {@code SimpleFilter}): it runs once
 * per call, for every call form, below the deadline and in front of retries and hedging ({@link
 * Role#CALL_FILTERS}); it sees the call's
 * {@link CallContext} and may change the request, the response, or answer without calling
 * {@code next}. {@link AttemptFilter} is the same for each attempt.
 *
 * <p>{@code next} sends the request down the stack once; calling it again fails. The call's
 * deadline covers the filters too: a filter that never completes its future still ends at the
 * deadline. A filter that throws or returns {@code null} fails the call (the call's future, never
 * the caller).
 *
 * @param <Req> the request type
 * @param <Rep> the response type
 */
@FunctionalInterface
public interface Filter<Req, Rep> {

  /** Handles one call, calling {@code next} at most once. */
  CompletableFuture<Rep> apply(Req request, CallContext<Req> ctx, Service<Req, Rep> next);

  /** Returns a filter that runs this one, then {@code next}. */
  default Filter<Req, Rep> andThen(Filter<Req, Rep> next) {
    Objects.requireNonNull(next, "next");
    return (req, ctx, service) -> apply(req, ctx, r -> next.apply(r, ctx, service));
  }
}
