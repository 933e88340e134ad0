package dev.ballast.netty;

import java.util.Objects;
import java.util.concurrent.CompletableFuture;

/**
 * A layer around a {@link Service}: it may change the request, the response, or decide not to
 * call the next service at all (after Finagle's {@code SimpleFilter}).
 *
 * <p>Filters compose: {@code a.andThen(b).andThen(service)} runs {@code a}, then {@code b}, then
 * the service.
 *
 * @param <Req> the request type
 * @param <Rep> the response type
 */
@FunctionalInterface
public interface Filter<Req, Rep> {

  /** Handles one request, calling {@code next} zero or more times. */
  CompletableFuture<Rep> apply(Req request, Service<Req, Rep> next);

  /** Returns a filter that runs this one, then {@code next}. */
  default Filter<Req, Rep> andThen(Filter<Req, Rep> next) {
    Objects.requireNonNull(next, "next");
    return (req, service) -> apply(req, r -> next.apply(r, service));
  }

  /** Returns the service made of this filter in front of {@code service}. */
  default Service<Req, Rep> andThen(Service<Req, Rep> service) {
    Objects.requireNonNull(service, "service");
    return req -> {
      try {
        return apply(req, service);
      } catch (RuntimeException e) {
        return CompletableFuture.failedFuture(e);
      }
    };
  }

  /** Returns the filter that passes every request straight through. */
  static <Req, Rep> Filter<Req, Rep> identity() {
    return (req, next) -> next.call(req);
  }
}
