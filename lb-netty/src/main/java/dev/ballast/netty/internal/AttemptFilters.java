package dev.ballast.netty.internal;

import dev.ballast.netty.AttemptFilter;
import dev.ballast.netty.Role;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The attempt filters' module: the builder's {@link AttemptFilter}s, composed in the order added.
 * Down, they get the attempt and a {@code next} that passes it on; up, the wire's outcome
 * completes the future {@code next} returned, and what the filters return goes on up (held here
 * meanwhile). When the call ends without the attempt, that future fails with the reason and what
 * the filters return after that is ignored. Without filters, it passes attempts straight on.
 */
final class AttemptFilters<Req, Rep> extends AttemptLayer<Req, Rep> {

  private final AttemptFilter<Req, Rep> filters; // null: none

  AttemptFilters(List<AttemptFilter<Req, Rep>> filters) {
    super(Role.ATTEMPT_FILTERS);
    this.filters = filters.stream().reduce(AttemptFilters::andThen).orElse(null);
  }

  boolean isEmpty() {
    return filters == null;
  }

  private static <Req, Rep> AttemptFilter<Req, Rep> andThen(AttemptFilter<Req, Rep> first,
      AttemptFilter<Req, Rep> second) {
    return (req, ctx, next) -> first.apply(req, ctx, r -> second.apply(r, ctx, next));
  }

  @Override
  void enter(Attempt<Req, Rep> a) {
    if (filters == null) {
      pass(a);
      return;
    }
    a.reached = this; // until the filters call next
    CompletableFuture<Rep> out;
    try {
      out = filters.apply(a.toSend, a, req -> a.sendOnce(req, this));
      if (out == null) {
        out = CompletableFuture.failedFuture(
            new NullPointerException("an attempt filter returned null"));
      }
    } catch (RuntimeException | Error e) { // the call fails; nothing escapes to the caller
      out = CompletableFuture.failedFuture(e);
    }
    out.whenComplete((rep, err) -> {
      if (a.endCaller(rep, err)) {
        a.heldBy = null;
        a.up(above);
      }
    });
  }

  @Override
  boolean leave(Attempt<Req, Rep> a) {
    CompletableFuture<Rep> w = filters == null ? null : a.wire();
    if (a.isAbandoned()) {
      Throwable why = a.abandonedFor();
      if (w != null && why != null) {
        w.completeExceptionally(why);
      }
      return true;
    }
    if (w == null) {
      return true;
    }
    // the wire's outcome goes to the filters; theirs goes on up when their future completes
    if (a.failure != null) {
      w.completeExceptionally(a.failure);
    } else {
      w.complete(a.response);
    }
    return false;
  }
}
