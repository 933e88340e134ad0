package dev.ballast.netty.internal;

import dev.ballast.netty.Filter;
import dev.ballast.netty.Role;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * The call filters' module: the builder's {@link Filter}s, composed in the order added. Down,
 * they get the call and a {@code next} that passes it on (once); up, the call's decided outcome
 * completes the future {@code next} returned, and what the filters return is delivered to the
 * caller (held here meanwhile; the deadline still ends the call if they never answer). Without
 * filters, it passes calls straight on.
 */
final class CallFilters<Req, Rep> extends CallLayer<Req, Rep> {

  private final Filter<Req, Rep> filters; // null: none

  CallFilters(List<Filter<Req, Rep>> filters) {
    super(Role.CALL_FILTERS);
    this.filters = filters.stream().reduce(Filter::andThen).orElse(null);
  }

  @Override
  void enter(Call<Req, Rep> call) {
    if (filters == null) {
      pass(call);
      return;
    }
    call.resumeAt = above;
    call.core = new CompletableFuture<>();
    CompletableFuture<Rep> out;
    try {
      out = filters.apply(call.request, call, req -> {
        synchronized (call) {
          if (call.passed) {
            return CompletableFuture.failedFuture(new IllegalStateException(
                "next called twice for one call (expected: at most once)"));
          }
          call.passed = true;
          call.sent = Objects.requireNonNull(req, "request");
        }
        pass(call);
        return call.core;
      });
      if (out == null) {
        out = CompletableFuture.failedFuture(new NullPointerException("a filter returned null"));
      }
    } catch (RuntimeException | Error e) {
      out = CompletableFuture.failedFuture(e);
    }
    out.whenComplete((rep, err) -> {
      Throwable t = err instanceof CompletionException && err.getCause() != null
          ? err.getCause() : err;
      call.decide(rep, t, null, null); // attempts still running are not needed any more
      call.deliver(rep, t);
    });
  }

  @Override
  boolean leave(Call<Req, Rep> call) {
    CompletableFuture<Rep> core = call.core;
    if (core == null) {
      return true;
    }
    Throwable err = call.failure();
    if (err != null) {
      core.completeExceptionally(err);
    } else {
      core.complete(call.outcome());
    }
    return false; // delivered when the filters' future completes (Call.deliver)
  }
}
