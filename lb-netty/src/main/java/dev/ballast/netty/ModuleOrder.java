package dev.ballast.netty;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The order of the client's modules, top (the caller's side) to bottom (the connection's): the
 * one place it is written. A call goes down the list once and its outcome comes back up once;
 * call-level modules see the call, attempt-level modules each attempt (after Finagle's {@code
 * StackClient} and Armeria's decorators). The default order:
 *
 * <pre>
 * call level:     deadline -> call-filters -> retry -> hedging
 * attempt level:  balancer -> outlier-detection -> metrics -> classifier -> attempt-filters -> pool
 * </pre>
 *
 * <p>So an attempt's outcome is classified first on its way up, then heard by metrics, outlier
 * detection and the balancer, then by hedging and retries, which send another attempt down or
 * let the outcome decide the call.
 *
 * <p>{@link BallastClient.Builder#modules} edits it: {@link #remove} a module, {@link
 * #moveBefore}/{@link #moveAfter} one, or add an {@link AttemptModule} of one's own with {@link
 * #addBefore}/{@link #addAfter}. Each edit is checked at once: the deadline, balancer, classifier
 * and pool cannot be removed; call-level modules keep their order above the attempt level; the
 * balancer stays the first attempt-level module and the pool the last; outlier detection and
 * metrics stay above the classifier (they hear the classification).
 *
 * @param <Req> the request type
 * @param <Rep> the response type
 */
public final class ModuleOrder<Req, Rep> {

  /** The built-in roles, in their default order. */
  static final List<Role> BUILT_IN = List.of(Role.DEADLINE, Role.CALL_FILTERS, Role.RETRY,
      Role.HEDGING, Role.BALANCER, Role.OUTLIER_DETECTION, Role.METRICS, Role.CLASSIFIER,
      Role.ATTEMPT_FILTERS, Role.POOL);
  private static final List<Role> REQUIRED =
      List.of(Role.DEADLINE, Role.BALANCER, Role.CLASSIFIER, Role.POOL);

  private final List<Role> roles = new ArrayList<>(BUILT_IN);
  private final Map<Role, AttemptModule<Req, Rep>> added = new HashMap<>();

  ModuleOrder() {
  }

  /** Returns the roles in their current order, top to bottom. */
  public List<Role> roles() {
    return Collections.unmodifiableList(new ArrayList<>(roles));
  }

  /**
   * Removes the module of {@code role}: {@code call-filters} or {@code attempt-filters} (the
   * builder's filters of that level then do not run), {@code retry}, {@code hedging}, {@code
   * outlier-detection}, {@code metrics}, or one added.
   *
   * @throws IllegalArgumentException if the role is absent or cannot be removed
   */
  public ModuleOrder<Req, Rep> remove(Role role) {
    indexOf(role);
    if (REQUIRED.contains(role)) {
      throw new IllegalArgumentException("role: " + role
          + " (expected: one that can be removed, not " + REQUIRED + ")");
    }
    roles.remove(role);
    added.remove(role);
    return this;
  }

  /**
   * Adds {@code module} under {@code role} just above {@code anchor}'s module.
   *
   * @throws IllegalArgumentException if {@code role} is present already, {@code anchor} is
   *     absent, or the order would break a rule of the class comment
   */
  public ModuleOrder<Req, Rep> addBefore(Role anchor, Role role, AttemptModule<Req, Rep> module) {
    return add(anchor, 0, role, module);
  }

  /** As {@link #addBefore}, just below {@code anchor}'s module. */
  public ModuleOrder<Req, Rep> addAfter(Role anchor, Role role, AttemptModule<Req, Rep> module) {
    return add(anchor, 1, role, module);
  }

  /**
   * Moves {@code role}'s module just above {@code anchor}'s.
   *
   * @throws IllegalArgumentException if either is absent, or the order would break a rule
   */
  public ModuleOrder<Req, Rep> moveBefore(Role role, Role anchor) {
    return move(role, anchor, 0);
  }

  /** As {@link #moveBefore}, just below {@code anchor}'s module. */
  public ModuleOrder<Req, Rep> moveAfter(Role role, Role anchor) {
    return move(role, anchor, 1);
  }

  private ModuleOrder<Req, Rep> add(Role anchor, int offset, Role role,
      AttemptModule<Req, Rep> module) {
    Objects.requireNonNull(role, "role");
    Objects.requireNonNull(module, "module");
    if (BUILT_IN.contains(role) || roles.contains(role)) {
      throw new IllegalArgumentException("role: " + role
          + " (expected: a new one, from Role.of, not one in " + roles + ")");
    }
    List<Role> next = new ArrayList<>(roles);
    next.add(indexOf(anchor) + offset, role);
    check(next);
    roles.clear();
    roles.addAll(next);
    added.put(role, module);
    return this;
  }

  private ModuleOrder<Req, Rep> move(Role role, Role anchor, int offset) {
    indexOf(role);
    indexOf(anchor);
    List<Role> next = new ArrayList<>(roles);
    next.remove(role);
    next.add(next.indexOf(anchor) + offset, role);
    check(next);
    roles.clear();
    roles.addAll(next);
    return this;
  }

  private int indexOf(Role role) {
    Objects.requireNonNull(role, "role");
    int i = roles.indexOf(role);
    if (i < 0) {
      throw new IllegalArgumentException("role: " + role + " (expected: one of " + roles + ")");
    }
    return i;
  }

  private static void check(List<Role> order) {
    List<Role> calls = new ArrayList<>();
    int firstAttempt = -1;
    for (int i = 0; i < order.size(); i++) {
      Role r = order.get(i);
      if (r.level() == Role.Level.CALL) {
        if (firstAttempt >= 0) {
          throw broken(order, "call-level role " + r + " above the attempt level");
        }
        calls.add(r);
      } else if (firstAttempt < 0) {
        firstAttempt = i;
      }
    }
    List<Role> builtInCalls = new ArrayList<>(BUILT_IN.subList(0, 4));
    builtInCalls.retainAll(calls);
    if (!builtInCalls.equals(calls)) {
      throw broken(order, "call-level roles in their order " + BUILT_IN.subList(0, 4));
    }
    if (!order.get(firstAttempt).equals(Role.BALANCER)) {
      throw broken(order, "balancer first at attempt level");
    }
    if (!order.get(order.size() - 1).equals(Role.POOL)) {
      throw broken(order, "pool last");
    }
    int classifier = order.indexOf(Role.CLASSIFIER);
    for (Role r : List.of(Role.OUTLIER_DETECTION, Role.METRICS)) {
      if (order.indexOf(r) > classifier) {
        throw broken(order, r + " above classifier");
      }
    }
  }

  private static IllegalArgumentException broken(List<Role> order, String expected) {
    return new IllegalArgumentException("module order: " + order + " (expected: " + expected
        + ")");
  }

  /** The modules added, by role. */
  Map<Role, AttemptModule<Req, Rep>> added() {
    return Map.copyOf(added);
  }
}
