package dev.ballast.netty.internal;

import dev.ballast.core.Ticker;
import dev.ballast.netty.ModuleOrder;
import dev.ballast.netty.Role;
import dev.ballast.netty.retry.Hedging;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;

/**
 * The client's modules linked in {@link ModuleOrder}'s order, once, when the client is built;
 * and what every call and attempt reads from the client (its clock, its completion executor, the
 * late-answer wait). A call enters at {@link #top}; the last call-level module hands it to the
 * balancer's module, the first attempt-level one; an attempt's outcome comes up from the module
 * it reached.
 */
public final class Chain<Req, Rep> {

  /** Records the modules a call and its attempts enter and leave (tests only). */
  public interface Trace {
    /** {@code role}'s module was entered; {@code attempt} is 0 at call level. */
    void entered(Role role, int attempt);

    /** {@code role}'s module let the outcome go on up. */
    void left(Role role, int attempt);
  }

  final Ticker ticker;
  final Executor completionExecutor;
  final long lateAnswerWaitNanos;
  final AtomicBoolean closed;
  final DeadlineModule<Req, Rep> deadlines;
  final BalancerModule<Req, Rep> balancer;
  /** Whether attempts pass through attempt filters (else the caller's part ends at the wire). */
  final boolean attemptFilters;
  final CallLayer<Req, Rep> top;
  final CallLayer<Req, Rep> lastCall;

  /**
   * Links the modules; {@code module} gives each role's (null: the role is left out, as hedging
   * is without a {@link Hedging} configuration).
   */
  Chain(List<Role> order, Function<Role, Object> module, Trace trace, Ticker ticker,
      Executor completionExecutor, long lateAnswerWaitNanos, AtomicBoolean closed,
      DeadlineModule<Req, Rep> deadlines, BalancerModule<Req, Rep> balancer,
      boolean attemptFilters) {
    this.ticker = ticker;
    this.completionExecutor = completionExecutor;
    this.lateAnswerWaitNanos = lateAnswerWaitNanos;
    this.closed = closed;
    this.deadlines = deadlines;
    this.balancer = balancer;
    this.attemptFilters = attemptFilters;
    List<CallLayer<Req, Rep>> calls = new ArrayList<>();
    List<AttemptLayer<Req, Rep>> attempts = new ArrayList<>();
    for (Role r : order) {
      Object m = module.apply(r);
      if (m instanceof CallLayer<?, ?>) {
        @SuppressWarnings("unchecked")
        CallLayer<Req, Rep> c = (CallLayer<Req, Rep>) m;
        calls.add(trace == null ? c : new CallLayer.Traced<>(c, trace));
      } else if (m instanceof AttemptLayer<?, ?>) {
        @SuppressWarnings("unchecked")
        AttemptLayer<Req, Rep> a = (AttemptLayer<Req, Rep>) m;
        attempts.add(trace == null ? a : new AttemptLayer.Traced<>(a, trace));
      }
    }
    for (int i = 0; i < calls.size(); i++) {
      calls.get(i).link(i + 1 < calls.size() ? calls.get(i + 1) : null,
          i > 0 ? calls.get(i - 1) : null, balancer);
    }
    for (int i = 0; i < attempts.size(); i++) {
      attempts.get(i).link(i + 1 < attempts.size() ? attempts.get(i + 1) : null,
          i > 0 ? attempts.get(i - 1) : null);
    }
    balancer.entry = attempts.get(0);
    this.top = calls.get(0);
    this.lastCall = calls.get(calls.size() - 1);
  }
}
