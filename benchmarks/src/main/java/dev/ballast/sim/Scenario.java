package dev.ballast.sim;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * One experiment: the backends and their latencies, slow windows, the request rate, how long it
 * runs, the client's timeout and its retry and backup-request policy. Immutable; build one with
 * {@link #builder()} or take a built-in one with {@link Scenarios#named(String)}.
 *
 * @param name a short name for reports
 * @param backends one latency distribution per backend
 * @param slowWindows periods when a backend answers with another latency
 * @param ratePerSecond requests sent per second of virtual time
 * @param poisson whether arrivals are a Poisson process (else evenly spaced)
 * @param durationNanos how long requests are sent
 * @param timeoutNanos the client's deadline per request: a request not answered by then fails,
 *     and its attempts complete as failures for the balancer, at that moment or, with {@code
 *     lateAnswers}, when their answer comes
 * @param retries how many more attempts a request may make after an attempt times out at the
 *     per-try timeout (0: off)
 * @param tryTimeoutNanos the per-attempt timeout when retries are on
 * @param backupAfterNanos when to send one backup request if the first has not answered (0: off)
 * @param enforceTimeout whether the client gives up at the deadline (its attempts then complete
 *     for the balancer as failures, at that moment or as {@code lateAnswers} says); if false, the timeout is only a measuring
 *     threshold, as in Linkerd's experiment: the client waits for every answer, the balancer sees
 *     its real latency, and a request answered after the timeout counts as a failure
 * @param lateAnswers with the timeout enforced, whether an attempt still running at the deadline
 *     stays pending on its node until its answer, which then feeds the balancer its real latency
 *     as a failure (true, lb-netty's default: a deadline frees the caller, not the server); if
 *     false, it completes for the balancer as a failure of the elapsed time at the deadline
 * @param seed the seed of every random draw (arrivals, latencies, balancer)
 * @param scaleOut backends joining during the run, or null
 * @param measureFromNanos requests arriving before this time are left out of the results (and
 *     reported apart, as the steady state before a scale-out)
 * @param slowStartNanos the balancers' slow-start window (0: off)
 * @param slowStartAggression the ramp's aggression (lb-core's default 1.0)
 * @param slowStartFloorPercent the ramp's floor in percent (lb-core's default 10)
 */
public record Scenario(
    String name,
    List<LatencyDistribution> backends,
    List<SlowWindow> slowWindows,
    double ratePerSecond,
    boolean poisson,
    long durationNanos,
    long timeoutNanos,
    int retries,
    long tryTimeoutNanos,
    long backupAfterNanos,
    boolean enforceTimeout,
    boolean lateAnswers,
    long seed,
    ScaleOut scaleOut,
    long measureFromNanos,
    long slowStartNanos,
    double slowStartAggression,
    double slowStartFloorPercent) {

  /** Checks the fields. */
  public Scenario {
    Objects.requireNonNull(name, "name");
    backends = List.copyOf(backends);
    slowWindows = List.copyOf(slowWindows);
    if (backends.isEmpty()) {
      throw new IllegalArgumentException("backends: 0 (expected: > 0)");
    }
    for (SlowWindow w : slowWindows) {
      if (w.backend() >= backends.size()) {
        throw new IllegalArgumentException("slow window backend: " + w.backend()
            + " (expected: < " + backends.size() + ", the number of backends)");
      }
    }
    if (!(ratePerSecond > 0) || Double.isInfinite(ratePerSecond)) {
      throw new IllegalArgumentException("rate: " + ratePerSecond + " (expected: > 0)");
    }
    if (durationNanos <= 0) {
      throw new IllegalArgumentException("duration: " + durationNanos + "ns (expected: > 0)");
    }
    if (timeoutNanos <= 0) {
      throw new IllegalArgumentException("timeout: " + timeoutNanos + "ns (expected: > 0)");
    }
    if (retries < 0) {
      throw new IllegalArgumentException("retries: " + retries + " (expected: >= 0)");
    }
    if (retries > 0 && (tryTimeoutNanos <= 0 || tryTimeoutNanos > timeoutNanos)) {
      throw new IllegalArgumentException("try timeout: " + Durations.format(tryTimeoutNanos)
          + " (expected: > 0 and <= the timeout " + Durations.format(timeoutNanos) + ")");
    }
    if (scaleOut != null && scaleOut.initial() >= backends.size()) {
      throw new IllegalArgumentException("scale-out: " + scaleOut.initial()
          + " backends at first (expected: fewer than the " + backends.size() + " backends)");
    }
    if (measureFromNanos < 0 || measureFromNanos >= durationNanos) {
      throw new IllegalArgumentException("measure from: " + Durations.format(measureFromNanos)
          + " (expected: >= 0 and before the end, " + Durations.format(durationNanos) + ")");
    }
    if (slowStartNanos < 0) {
      throw new IllegalArgumentException("slow start: " + Durations.format(slowStartNanos)
          + " (expected: >= 0, 0 for off)");
    }
    if (!(slowStartAggression > 0) || Double.isInfinite(slowStartAggression)) {
      throw new IllegalArgumentException("slow start aggression: "
          + Flags.number(slowStartAggression) + " (expected: > 0)");
    }
    if (!(slowStartFloorPercent > 0 && slowStartFloorPercent <= 100)) {
      throw new IllegalArgumentException("slow start floor: "
          + Flags.number(slowStartFloorPercent) + "% (expected: > 0 and <= 100)");
    }
    if (backupAfterNanos < 0 || (backupAfterNanos > 0 && backupAfterNanos >= timeoutNanos)) {
      throw new IllegalArgumentException("backup after: " + Durations.format(backupAfterNanos)
          + " (expected: 0 for off, or less than the timeout " + Durations.format(timeoutNanos) + ")");
    }
  }

  /** Returns a builder holding these settings. */
  public Builder toBuilder() {
    Builder b = builder().name(name).ratePerSecond(ratePerSecond).poisson(poisson)
        .durationNanos(durationNanos).timeoutNanos(timeoutNanos).retries(retries)
        .tryTimeoutNanos(tryTimeoutNanos).backupAfterNanos(backupAfterNanos)
        .enforceTimeout(enforceTimeout).lateAnswers(lateAnswers).seed(seed).scaleOut(scaleOut)
        .measureFromNanos(measureFromNanos)
        .slowStart(slowStartNanos, slowStartAggression, slowStartFloorPercent);
    b.backends.addAll(backends);
    b.slowWindows.addAll(slowWindows);
    return b;
  }

  /**
   * Returns an empty builder. Defaults: name {@code custom}, no backends, no slow windows, 100
   * requests/s evenly spaced, 10 s, timeout 1 s, no retries, no backup requests, seed 1.
   */
  public static Builder builder() {
    return new Builder();
  }

  /** Returns a one-line description, e.g. for a report's title. */
  public String describe() {
    StringBuilder s = new StringBuilder(name).append(": ").append(backends.size()).append(" backends ");
    if (backends.stream().map(Object::toString).distinct().count() == 1) {
      s.append(backends.get(0));
    } else {
      s.append(backends);
    }
    s.append(String.format(Locale.ROOT, ", %s req/s %s, %s, timeout %s", Flags.number(ratePerSecond),
        poisson ? "poisson" : "constant", Durations.format(durationNanos), Durations.format(timeoutNanos)));
    if (!enforceTimeout) {
      s.append(" (measured, not enforced)");
    } else if (!lateAnswers) {
      s.append(" (enforced, late answers dropped)");
    } else {
      s.append(" (enforced)");
    }
    if (retries > 0) {
      s.append(", ").append(retries).append(" retries after ").append(Durations.format(tryTimeoutNanos));
    }
    if (backupAfterNanos > 0) {
      s.append(", backup request after ").append(Durations.format(backupAfterNanos));
    }
    for (SlowWindow w : slowWindows) {
      s.append(w.fails() ? "; failing: " : "; slow: ").append(w);
    }
    if (scaleOut != null) {
      s.append("; scale-out: ").append(scaleOut);
    }
    if (slowStartNanos > 0) {
      s.append("; slow start over ").append(Durations.format(slowStartNanos))
          .append(" (aggression ").append(Flags.number(slowStartAggression)).append(", floor ")
          .append(Flags.number(slowStartFloorPercent)).append("%)");
    }
    if (measureFromNanos > 0) {
      s.append("; measured from ").append(Durations.format(measureFromNanos));
    }
    return s.append("; seed ").append(seed).toString();
  }

  /** Builds a {@link Scenario}; see {@link Scenario#builder()} for the defaults. */
  public static final class Builder {
    private String name = "custom";
    private final List<LatencyDistribution> backends = new ArrayList<>();
    private final List<SlowWindow> slowWindows = new ArrayList<>();
    private double ratePerSecond = 100;
    private boolean poisson;
    private long durationNanos = 10_000_000_000L;
    private long timeoutNanos = 1_000_000_000L;
    private int retries;
    private long tryTimeoutNanos;
    private long backupAfterNanos;
    private boolean enforceTimeout = true;
    private boolean lateAnswers = true;
    private long seed = 1;
    private ScaleOut scaleOut;
    private long measureFromNanos;
    private long slowStartNanos;
    private double slowStartAggression = 1.0;
    private double slowStartFloorPercent = 10;

    private Builder() {}

    /** Sets the name. */
    public Builder name(String name) {
      this.name = Objects.requireNonNull(name, "name");
      return this;
    }

    /** Replaces the backends by {@code count} backends of the same latency. */
    public Builder backends(int count, LatencyDistribution latency) {
      if (count < 1) {
        throw new IllegalArgumentException("backends: " + count + " (expected: > 0)");
      }
      backends.clear();
      for (int i = 0; i < count; i++) {
        backends.add(Objects.requireNonNull(latency, "latency"));
      }
      return this;
    }

    /** Sets backend {@code index}'s latency (the backend must exist). */
    public Builder backend(int index, LatencyDistribution latency) {
      if (index < 0 || index >= backends.size()) {
        throw new IllegalArgumentException(
            "backend: " + index + " (expected: 0 to " + (backends.size() - 1) + ")");
      }
      backends.set(index, Objects.requireNonNull(latency, "latency"));
      return this;
    }

    /** Returns how many backends there are so far. */
    public int backendCount() {
      return backends.size();
    }

    /** Adds a slow window. */
    public Builder slowWindow(SlowWindow window) {
      slowWindows.add(Objects.requireNonNull(window, "window"));
      return this;
    }

    /** Removes every slow window. */
    public Builder clearSlowWindows() {
      slowWindows.clear();
      return this;
    }

    /** Sets the request rate per second of virtual time; default 100. */
    public Builder ratePerSecond(double ratePerSecond) {
      this.ratePerSecond = ratePerSecond;
      return this;
    }

    /** Sets whether arrivals are Poisson (else evenly spaced); default false. */
    public Builder poisson(boolean poisson) {
      this.poisson = poisson;
      return this;
    }

    /** Sets how long requests are sent; default 10 s. */
    public Builder durationNanos(long durationNanos) {
      this.durationNanos = durationNanos;
      return this;
    }

    /** Sets the per-request deadline; default 1 s. */
    public Builder timeoutNanos(long timeoutNanos) {
      this.timeoutNanos = timeoutNanos;
      return this;
    }

    /** Sets the retries after a per-try timeout; default 0 (off). */
    public Builder retries(int retries) {
      this.retries = retries;
      return this;
    }

    /** Sets the per-try timeout used when retries are on; default 0 (then timeout / (retries + 1)). */
    public Builder tryTimeoutNanos(long tryTimeoutNanos) {
      this.tryTimeoutNanos = tryTimeoutNanos;
      return this;
    }

    /** Sets when a backup request is sent; default 0 (off). */
    public Builder backupAfterNanos(long backupAfterNanos) {
      this.backupAfterNanos = backupAfterNanos;
      return this;
    }

    /**
     * Sets whether the client gives up at the deadline (true, the default) or only measures
     * against it, waiting for every answer (false); see {@link Scenario#enforceTimeout()}.
     */
    public Builder enforceTimeout(boolean enforceTimeout) {
      this.enforceTimeout = enforceTimeout;
      return this;
    }

    /**
     * Sets whether, with the timeout enforced, late answers still feed the balancer (true, the
     * default, as lb-netty); see {@link Scenario#lateAnswers()}.
     */
    public Builder lateAnswers(boolean lateAnswers) {
      this.lateAnswers = lateAnswers;
      return this;
    }

    /** Sets the seed; default 1. */
    public Builder seed(long seed) {
      this.seed = seed;
      return this;
    }

    /** Sets the backends that join during the run (null: none, the default). */
    public Builder scaleOut(ScaleOut scaleOut) {
      this.scaleOut = scaleOut;
      return this;
    }

    /** Sets from when requests count in the results; default 0. */
    public Builder measureFromNanos(long measureFromNanos) {
      this.measureFromNanos = measureFromNanos;
      return this;
    }

    /**
     * Sets the balancers' slow start: window (default 0, off), aggression (default 1.0) and floor
     * in percent (default 10), as lb-core's {@code BalancerConfig.Builder.slowStart}.
     */
    public Builder slowStart(long windowNanos, double aggression, double floorPercent) {
      this.slowStartNanos = windowNanos;
      this.slowStartAggression = aggression;
      this.slowStartFloorPercent = floorPercent;
      return this;
    }

    /** Returns the scenario. */
    public Scenario build() {
      long tryTimeout = retries > 0 && tryTimeoutNanos == 0 ? timeoutNanos / (retries + 1) : tryTimeoutNanos;
      return new Scenario(name, backends, slowWindows, ratePerSecond, poisson, durationNanos,
          timeoutNanos, retries, tryTimeout, backupAfterNanos, enforceTimeout, lateAnswers, seed,
          scaleOut, measureFromNanos, slowStartNanos, slowStartAggression, slowStartFloorPercent);
    }
  }
}
