package dev.ballast.netty;

import dev.ballast.netty.error.BallastException;
import java.util.concurrent.CompletableFuture;

/**
 * An asynchronous function from a request to a response: the unit every layer of the client
 * stack is made of (after Finagle's {@code Service}).
 *
 * <p>A service never throws from {@link #call}: failures come back as an exceptionally completed
 * future, with a {@link BallastException} saying what happened and where.
 *
 * @param <Req> the request type
 * @param <Rep> the response type
 */
@FunctionalInterface
public interface Service<Req, Rep> {

  /** Sends the request; the future completes with the response or the failure. */
  CompletableFuture<Rep> call(Req request);
}
