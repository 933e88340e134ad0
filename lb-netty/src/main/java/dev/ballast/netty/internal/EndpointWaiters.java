package dev.ballast.netty.internal;

import dev.ballast.core.Endpoint;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * The futures waiting until the client's endpoints satisfy a condition. Touched only when one
 * registers and after each endpoint update, never on a call's way. A waiter is added before it
 * reads the current endpoints, and an update is applied before it reads the waiters, so a waiter
 * misses no update. A condition already met completes its future on the registering thread; one
 * met by an update completes it on the common pool, not on the updating thread (a source's
 * updates run on a feed thread that every client shares, which a caller's stage must not hold
 * up). Settled waiters leave the queue during that update; cancelled and timed-out ones as soon
 * as their future ends.
 */
final class EndpointWaiters {

  private static final class Waiter {
    final Predicate<? super List<Endpoint>> condition;
    final CompletableFuture<List<Endpoint>> future = new CompletableFuture<>();
    // set once by the test that settles the future, which may complete it later, elsewhere
    final AtomicBoolean claimed = new AtomicBoolean();

    Waiter(Predicate<? super List<Endpoint>> condition) {
      this.condition = condition;
    }

    /**
     * Settles the future if the endpoints satisfy the condition (or the condition throws),
     * completing it on {@code completer}, or here if null; returns whether it is settled.
     */
    boolean test(List<Endpoint> endpoints, Executor completer) {
      if (settled()) {
        return true;
      }
      Throwable failure = null;
      boolean met;
      try {
        met = condition.test(endpoints);
      } catch (Throwable t) { // whatever a caller's lambda throws, checked ones included
        met = true;
        failure = t;
      }
      if (met && claimed.compareAndSet(false, true)) {
        Throwable f = failure;
        Runnable settle = () -> {
          if (f == null) {
            future.complete(endpoints);
          } else {
            future.completeExceptionally(f);
          }
        };
        if (completer == null) {
          settle.run();
        } else {
          completer.execute(settle);
        }
      }
      return settled();
    }

    boolean settled() {
      return claimed.get() || future.isDone();
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
    if (closed) {
      fail(w);
    } else {
      w.test(snapshot(), null);
    }
    // leaves at once when settled, cancelled or timed out, not at the next update
    w.future.whenComplete((v, e) -> waiting.remove(w));
    return w.future;
  }

  /** Tests every waiter against the endpoints as they are now; call after each update. */
  void updated() {
    if (waiting.isEmpty()) {
      return;
    }
    List<Endpoint> now = snapshot();
    waiting.removeIf(w -> w.test(now, ForkJoinPool.commonPool()));
  }

  /** Fails every waiter, and those that come later, with an IllegalStateException. */
  void close() {
    closed = true;
    for (Waiter w; (w = waiting.poll()) != null; ) {
      fail(w);
    }
  }

  /** Returns how many futures wait. */
  int size() {
    return waiting.size();
  }

  private void fail(Waiter w) {
    w.claimed.set(true);
    w.future.completeExceptionally(new IllegalStateException(
        "client " + client + " closed before its endpoints satisfied the condition"));
  }

  private List<Endpoint> snapshot() {
    return Collections.unmodifiableList(current.get());
  }
}
