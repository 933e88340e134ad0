package dev.ballast.netty;

import dev.ballast.netty.retry.Hedging;
import dev.ballast.netty.retry.RetryPolicy;
import java.util.Objects;

/**
 * The name of a module's place in the client's chain (after Finagle's {@code Stack.Role}): {@link
 * ModuleOrder} lists the roles in their order, and a builder removes, moves or adds modules by
 * role. The built-in roles are the constants; {@link #of} names a module of the caller's own.
 *
 * <p>A role is of one {@link Level}: a call-level module sees each call once, an attempt-level
 * module each attempt once (retries and hedges included).
 */
public final class Role {

  /** Whether a module sees calls or attempts. */
  public enum Level {
    /** Entered once per call on the way down and left once on the way up. */
    CALL,
    /** Entered once per attempt on the way down and left once on the way up. */
    ATTEMPT
  }

  /** The deadline: every call sits in a timing wheel until it ends or its deadline passes. */
  public static final Role DEADLINE = new Role("deadline", Level.CALL);
  /** The call-level {@link Filter}s, in the order the builder added them. */
  public static final Role CALL_FILTERS = new Role("call-filters", Level.CALL);
  /** Retries under the {@link RetryPolicy} and its budget; entered once per call. */
  public static final Role RETRY = new Role("retry", Level.CALL);
  /**
   * Hedging (backup requests, {@link Hedging}); entered once per try (the first attempt and each
   * retry), it may send a second attempt of a try.
   */
  public static final Role HEDGING = new Role("hedging", Level.CALL);
  /**
   * The balancer: subset selection and the pick on the way down, the node's completion (latency
   * and outcome) on the way up. Always the first attempt-level module.
   */
  public static final Role BALANCER = new Role("balancer", Level.ATTEMPT);
  /** Outlier detection: hears each classified outcome that reached the endpoint. */
  public static final Role OUTLIER_DETECTION = new Role("outlier-detection", Level.ATTEMPT);
  /**
   * The endpoint's counters, metrics and slow-request log; a refused connection asks the
   * endpoint source to re-read early.
   */
  public static final Role METRICS = new Role("metrics", Level.ATTEMPT);
  /**
   * The {@link ResponseClassifier}: on the way up it classifies the outcome, so that the modules
   * above it (balancer, outlier detection, metrics, retries) hear the classification.
   */
  public static final Role CLASSIFIER = new Role("classifier", Level.ATTEMPT);
  /** The attempt-level {@link AttemptFilter}s, in the order the builder added them. */
  public static final Role ATTEMPT_FILTERS = new Role("attempt-filters", Level.ATTEMPT);
  /**
   * The endpoint's connection pool and the connection: writes the request and reads the answer.
   * Always the last module.
   */
  public static final Role POOL = new Role("pool", Level.ATTEMPT);

  private final String name;
  private final Level level;

  private Role(String name, Level level) {
    this.name = name;
    this.level = level;
  }

  /**
   * Returns the role of an {@link AttemptModule} of the caller's own.
   *
   * @throws IllegalArgumentException if the name is blank or a built-in role's
   */
  public static Role of(String name) {
    Objects.requireNonNull(name, "name");
    if (name.isBlank()) {
      throw new IllegalArgumentException("role name: '" + name + "' (expected: not blank)");
    }
    for (Role r : ModuleOrder.BUILT_IN) {
      if (r.name.equals(name)) {
        throw new IllegalArgumentException("role name: '" + name
            + "' (expected: not a built-in role's name)");
      }
    }
    return new Role(name, Level.ATTEMPT);
  }

  /** Returns the role's name, e.g. {@code retry}. */
  public String name() {
    return name;
  }

  /** Returns whether the role's module sees calls or attempts. */
  public Level level() {
    return level;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Role r && r.name.equals(name);
  }

  @Override
  public int hashCode() {
    return name.hashCode();
  }

  @Override
  public String toString() {
    return name;
  }
}
