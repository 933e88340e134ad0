package dev.ballast.netty.internal;

import dev.ballast.netty.Role;

/**
 * A call-level module of the chain: given the next module, it passes the call down ({@link
 * #pass}) and hears it come back up ({@link #leave}) once the call is decided, through the call
 * itself (the per-call context is the chain's future). The retry and hedging modules also hear
 * each attempt's outcome on its way up ({@link #answered}) and may keep it to send another
 * attempt down. No module calls back into a central object: the order and the links are set
 * once, by {@link Chain}.
 */
abstract class CallLayer<Req, Rep> {

  final Role role;
  /** The module below, or null for the last call-level one (below it: the attempts). */
  CallLayer<Req, Rep> next;
  /** The module above, or null for the first (above it: the caller). */
  CallLayer<Req, Rep> above;
  /** The first attempt-level module (the balancer's). */
  BalancerModule<Req, Rep> attempts;

  CallLayer(Role role) {
    this.role = role;
  }

  void link(CallLayer<Req, Rep> next, CallLayer<Req, Rep> above,
      BalancerModule<Req, Rep> attempts) {
    this.next = next;
    this.above = above;
    this.attempts = attempts;
  }

  /** The call (or, below the retry module, a retry of it) goes down; by default it goes on. */
  void enter(Call<Req, Rep> call) {
    pass(call);
  }

  /** Sends the call to the next module, or, below the last one, to the balancer's pick. */
  final void pass(Call<Req, Rep> call) {
    if (next != null) {
      next.enter(call);
    } else {
      attempts.start(call, false, null);
    }
  }

  /**
   * An attempt's outcome goes up (classified, and heard by the attempt-level modules); {@code
   * live} attempts of the call still run. Returns false to keep it (a retry was sent instead).
   */
  boolean answered(Attempt<Req, Rep> a, int live) {
    return true;
  }

  /**
   * The call's outcome goes up. Returns false to hold it: the module lets it go on later with
   * {@link Call#deliver} (the call filters do, once their own future completes).
   */
  boolean leave(Call<Req, Rep> call) {
    return true;
  }

  /** A module with every passage recorded (tests only: {@link Chain.Trace}). */
  static final class Traced<Req, Rep> extends CallLayer<Req, Rep> {
    private final CallLayer<Req, Rep> inner;
    private final Chain.Trace trace;

    Traced(CallLayer<Req, Rep> inner, Chain.Trace trace) {
      super(inner.role);
      this.inner = inner;
      this.trace = trace;
    }

    @Override
    void link(CallLayer<Req, Rep> next, CallLayer<Req, Rep> above,
        BalancerModule<Req, Rep> attempts) {
      super.link(next, above, attempts);
      inner.link(next, above, attempts);
    }

    @Override
    void enter(Call<Req, Rep> call) {
      trace.entered(role, 0);
      inner.enter(call);
    }

    @Override
    boolean answered(Attempt<Req, Rep> a, int live) {
      return inner.answered(a, live);
    }

    @Override
    boolean leave(Call<Req, Rep> call) {
      boolean on = inner.leave(call);
      if (on) {
        trace.left(role, 0);
      }
      return on;
    }
  }
}
