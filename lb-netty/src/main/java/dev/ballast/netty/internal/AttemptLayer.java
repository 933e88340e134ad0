package dev.ballast.netty.internal;

import dev.ballast.netty.ModuleOrder;
import dev.ballast.netty.Role;

/**
 * An attempt-level module of the chain: given the next module, it passes each attempt down
 * ({@link #pass}) and hears its outcome come back up ({@link #leave}), through the attempt itself
 * (the per-attempt context is the chain's future). The balancer's module is the first, the
 * pool's the last; {@link Chain} links them once, in {@link ModuleOrder}'s order.
 */
abstract class AttemptLayer<Req, Rep> {

  final Role role;
  /** The module below, or null for the last (the pool's). */
  AttemptLayer<Req, Rep> next;
  /** The module above, or null for the first (above it: the call-level modules). */
  AttemptLayer<Req, Rep> above;

  AttemptLayer(Role role) {
    this.role = role;
  }

  void link(AttemptLayer<Req, Rep> next, AttemptLayer<Req, Rep> above) {
    this.next = next;
    this.above = above;
  }

  /** The attempt goes down; by default it goes on. */
  void enter(Attempt<Req, Rep> a) {
    pass(a);
  }

  /** Sends the attempt to the next module (its answer will come up from there). */
  final void pass(Attempt<Req, Rep> a) {
    a.reached = next;
    next.enter(a);
  }

  /**
   * The attempt's outcome goes up ({@link Attempt#isAbandoned}: the call ended without it).
   * Returns false to hold it: the module lets it go on later with {@link Attempt#up} from its
   * {@link #above} (the attempt filters do, once their own future completes).
   */
  boolean leave(Attempt<Req, Rep> a) {
    return true;
  }

  /** A module with every passage recorded (tests only: {@link Chain.Trace}). */
  static final class Traced<Req, Rep> extends AttemptLayer<Req, Rep> {
    private final AttemptLayer<Req, Rep> inner;
    private final Chain.Trace trace;

    Traced(AttemptLayer<Req, Rep> inner, Chain.Trace trace) {
      super(inner.role);
      this.inner = inner;
      this.trace = trace;
    }

    @Override
    void link(AttemptLayer<Req, Rep> next, AttemptLayer<Req, Rep> above) {
      super.link(next, above);
      inner.link(next, above);
    }

    @Override
    void enter(Attempt<Req, Rep> a) {
      trace.entered(role, a.number);
      inner.enter(a);
    }

    @Override
    boolean leave(Attempt<Req, Rep> a) {
      boolean on = inner.leave(a);
      if (on) {
        trace.left(role, a.number);
      }
      return on;
    }
  }
}
