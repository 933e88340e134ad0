package dev.ballast.netty.internal;

import dev.ballast.core.Endpoint;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * The futures waiting until the client's endpoints satisfy a condition. Touched only when one
 * registers and after each endpoint update, never on a call's way. A waiter is added before it
 * reads the current endpoints, and an update is applied before it reads the waiters, so a waiter
 * misses no update. Futures complete outside any lock, on the thread that registered or applied
 * the update; done ones (completed, cancelled, timed out) leave the queue at the next update or
 * registration.
 */
final class EndpointWaiters {

  private static final class Waiter {
    final Predicate<? super List<Endpoint>> condition;
    final CompletableFuture<List<Endpoint>> future = new CompletableFuture<>();

    Waiter(Predicate<? super List<Endpoint>> condition) {
      this.condition = condition;
    }

    // Completes the future if the endpoints satisfy the condition (or the condition throws).
    void test(List<Endpoint> endpoints) {
      try {
        if (condition.test(endpoints)) {
          future.complete(endpoints);
        }
      } catch (RuntimeException | Error e) {
        future.completeExceptionally(e);
      }
    }
  }

  private final String client;
  private final Supplier<List<Endpoint>> current;
  private final ConcurrentLinkedQueue<Waiter> waiting = new ConcurrentLinkedQueue<>();
  private volatile boolean closed;

  EndpointWaiters(String client, Supplier<List<Endpoint>> current) {
    this.client = client;
    this.current = current;
  }

  /** Returns a future completed once the current endpoints satisfy the condition. */
  CompletableFuture<List<Endpoint>> when(Predicate<? super List<Endpoint>> condition) {
    Waiter w = new Waiter(Objects.requireNonNull(condition, "condition"));
    waiting.add(w);
    waiting.removeIf(o -> o.future.isDone());
    if (closed) {
      fail(w);
    } else {
      w.test(snapshot());
    }
    if (w.future.isDone()) {
      waiting.remove(w);
    }
    return w.future;
  }

  /** Tests every waiter against the endpoints as they are now; call after each update. */
  void updated() {
    if (waiting.isEmpty()) {
      return;
    }
    List<Endpoint> now = snapshot();
    waiting.removeIf(w -> {
      if (!w.future.isDone()) {
        w.test(now);
      }
      return w.future.isDone();
    });
  }

  /** Fails every waiter, and those that come later, with an IllegalStateException. */
  void close() {
    closed = true;
    for (Waiter w; (w = waiting.poll()) != null; ) {
      fail(w);
    }
  }

  /** Returns how many futures wait (done ones included until the next update). */
  int size() {
    return waiting.size();
  }

  private void fail(Waiter w) {
    w.future.completeExceptionally(new IllegalStateException(
        "client " + client + " closed before its endpoints satisfied the condition"));
  }

  private List<Endpoint> snapshot() {
    return Collections.unmodifiableList(current.get());
  }
}
