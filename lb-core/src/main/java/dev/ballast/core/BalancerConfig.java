package dev.ballast.core;

import dev.ballast.core.internal.ThreadLocalRandomSource;
import java.time.Duration;
import java.util.Objects;
import java.util.random.RandomGenerator;

/**
 * Immutable settings shared by every algorithm; each algorithm reads the ones it needs, and each
 * accessor states its default and its readers. Its options by name, for maps, gRPC service
 * configs and Spring properties, are {@code dev.ballast.core.policy.CoreOptions.BALANCER}.
 */
public final class BalancerConfig {

  /**
   * The longest duration a setting takes: {@link Long#MAX_VALUE} nanoseconds, about 292 years
   * ({@code ChronoUnit.FOREVER} is far longer and rejected).
   */
  public static final Duration MAX_DURATION = Duration.ofNanos(Long.MAX_VALUE);

  private static final BalancerConfig DEFAULTS = builder().build();

  private final Ticker ticker;
  private final RandomGenerator random;
  private final int maxEffort;
  private final boolean panicPick;
  private final Duration decayTime;
  private final Duration defaultRtt;
  private final int maxFails;
  private final double failurePenalty;
  private final Duration slowStartWindow;
  private final double slowStartAggression;
  private final double slowStartMinWeightPercent;
  private final int apertureIndex;
  private final int apertureCount;

  private BalancerConfig(Builder b) {
    this.ticker = b.ticker;
    this.random = b.random;
    this.maxEffort = b.maxEffort;
    this.panicPick = b.panicPick;
    this.decayTime = b.decayTime;
    this.defaultRtt = b.defaultRtt;
    this.maxFails = b.maxFails;
    this.failurePenalty = b.failurePenalty;
    this.slowStartWindow = b.slowStartWindow;
    this.slowStartAggression = b.slowStartAggression;
    this.slowStartMinWeightPercent = b.slowStartMinWeightPercent;
    this.apertureIndex = b.apertureIndex;
    this.apertureCount = b.apertureCount;
  }

  /** Returns the default settings. */
  public static BalancerConfig defaults() {
    return DEFAULTS;
  }

  /** Returns a builder holding the defaults. */
  public static Builder builder() {
    return new Builder();
  }

  /** Returns a builder holding these settings. */
  public Builder toBuilder() {
    return new Builder()
        .ticker(ticker)
        .random(random)
        .maxEffort(maxEffort)
        .panicPick(panicPick)
        .decayTime(decayTime)
        .defaultRtt(defaultRtt)
        .maxFails(maxFails)
        .failurePenalty(failurePenalty)
        .slowStart(slowStartWindow, slowStartAggression, slowStartMinWeightPercent)
        .apertureCoordinate(apertureIndex, apertureCount);
  }

  /** Returns the time source; default {@link Ticker#system()}. */
  public Ticker ticker() {
    return ticker;
  }

  /**
   * Returns the random source; default a thread-local generator. A seeded generator makes
   * picks repeatable but must then be used from one thread at a time.
   */
  public RandomGenerator random() {
    return random;
  }

  /** Returns how many candidates a pick tries before the degraded scan; default 5. */
  public int maxEffort() {
    return maxEffort;
  }

  /**
   * Returns whether a pick that finds no open node returns a busy or closed one (Finagle's panic
   * mode) instead of throwing {@link NoAvailableEndpointException}; default false.
   */
  public boolean panicPick() {
    return panicPick;
  }

  /** Returns the peak-EWMA decay time constant (tau); default 10 s. */
  public Duration decayTime() {
    return decayTime;
  }

  /** Returns the RTT a new node is assumed to have until it answers; default 30 ms. */
  public Duration defaultRtt() {
    return defaultRtt;
  }

  /** Returns nginx's {@code max_fails} for SWRR's effective-weight drop; default 1. */
  public int maxFails() {
    return maxFails;
  }

  /**
   * Returns how much a failed request raises P2C peak EWMA's estimate at most; default 2.0.
   *
   * <p>The rule: a failure sets the node's estimate to {@code max(latency, m × e)}, e being the
   * estimate decayed to now and {@code m = 1 + (penalty − 1) × Δ / (Δ + latency)}, Δ the time
   * since the estimate last changed. So a failure after a quiet spell multiplies the estimate by
   * up to the penalty (doubles it, by default); failures faster than their own latency (calls
   * in flight failing together) compound by about {@code e^(time/latency)}, not {@code
   * 2^count}: a backend failing fast grows e-fold every latency until it loses its traffic,
   * then gets a probe now and then as the estimate decays, doubling on each failed probe. A
   * failure never lowers the estimate (a backend failing in 1 ms never looks fastest). 1.0 turns
   * the raise off. The estimate is capped at Finagle's penalty, about 39 hours.
   */
  public double failurePenalty() {
    return failurePenalty;
  }

  /**
   * Returns the slow-start window; default {@link Duration#ZERO}, off. When on, an endpoint that
   * joins after the balancer's first non-empty update (a scale-out, a restart under a new node)
   * starts at a fraction of its weight and ramps up to all of it over the window, Envoy's slow
   * start: {@code weight × max(minWeightPercent / 100, (t / window)^(1 / aggression))}, t being
   * the time since it joined. The factor moves in steps of a tenth (rounded down, never below
   * the floor), so that weighted round robin rebuilds its ring ten times per ramp at most and its
   * pick stays O(1); picks read the clock once in 32 while some endpoint ramps, and never
   * otherwise. Round robin ramps as weighted round robin over the factors; P2C algorithms
   * divide a ramping endpoint's cost by its factor.
   *
   * <p>With latency feedback (P2C peak EWMA), the two multiply: the cost is {@code estimate ×
   * (pending + 1) / (weight × factor)}. A cold endpoint that answers slowly gets less than its
   * ramp allows, since its estimate rises (the feedback wins downward); one not yet measured, at
   * the default RTT, which may be below a cold instance's real latency, still gets no more than
   * its ramp allows. Neither undoes the other: the factor depends on the time since joining, not
   * on latency, so it keeps rising while the feedback holds traffic back, and never pushes
   * traffic onto an endpoint the feedback finds slow beyond the share the ramp gives it. Label
   * subsets' child balancers do not ramp (their nodes are made by the selector).
   */
  public Duration slowStartWindow() {
    return slowStartWindow;
  }

  /**
   * Returns the ramp's aggression (Envoy's name): 1.0 (default) ramps linearly; above 1 the
   * factor rises fast at first, below 1 slowly at first.
   */
  public double slowStartAggression() {
    return slowStartAggression;
  }

  /**
   * Returns the ramp's floor in percent of the weight, in (0, 100]; default 10 (Envoy's default,
   * and like Envoy's {@code min_weight_percent} a fraction may be given: 0.1 keeps a joining
   * endpoint at a thousandth of its weight). The floor is held to a millionth of the weight.
   * Weighted round robin gives the endpoints at a fine floor a ring of their own rather than
   * one ring of about {@code 100 / floor} virtual nodes per unit of weight; an algorithm that
   * still cannot hold the floor that finely (a weight sum past {@code int}, a ring past its
   * limit) rounds it up a decade at a time, to a tenth at most, rather than skip the ramp.
   */
  public double slowStartMinWeightPercent() {
    return slowStartMinWeightPercent;
  }

  /**
   * Returns this client's index among its peers for deterministic aperture; default 0. Clients
   * of one service number themselves 0 to {@link #apertureCount()} − 1.
   */
  public int apertureIndex() {
    return apertureIndex;
  }

  /**
   * Returns how many clients share the servers, for deterministic aperture; default 1 (a lone
   * client, whose aperture covers every server).
   */
  public int apertureCount() {
    return apertureCount;
  }

  static void checkCoordinate(int index, int count) {
    if (count < 1) {
      throw new IllegalArgumentException("aperture.clientCount: " + count + " (expected: > 0)");
    }
    if (index < 0 || index >= count) {
      throw new IllegalArgumentException(
          "aperture.clientIndex: " + index + " (expected: 0 to " + (count - 1) + ")");
    }
  }

  @Override
  public String toString() {
    return "BalancerConfig{maxEffort=" + maxEffort + ", panicPick=" + panicPick + ", decayTime="
        + decayTime + ", defaultRtt=" + defaultRtt + ", maxFails=" + maxFails
        + ", failurePenalty=" + failurePenalty + ", slowStart={window=" + slowStartWindow
        + ", aggression=" + slowStartAggression + ", minWeightPercent="
        + slowStartMinWeightPercent + "}, aperture={clientIndex=" + apertureIndex
        + ", clientCount=" + apertureCount + "}}";
  }

  /** Builds a {@link BalancerConfig}; every setter checks its argument. */
  public static final class Builder {
    private Ticker ticker = Ticker.system();
    private RandomGenerator random = ThreadLocalRandomSource.INSTANCE;
    private int maxEffort = 5;
    private boolean panicPick;
    private Duration decayTime = Duration.ofSeconds(10);
    private Duration defaultRtt = Duration.ofMillis(30);
    private int maxFails = 1;
    private double failurePenalty = 2.0;
    private Duration slowStartWindow = Duration.ZERO;
    private double slowStartAggression = 1.0;
    private double slowStartMinWeightPercent = 10;
    private int apertureIndex;
    private int apertureCount = 1;

    private Builder() {}

    /** Sets the time source; default {@link Ticker#system()}. */
    public Builder ticker(Ticker ticker) {
      this.ticker = Objects.requireNonNull(ticker, "ticker");
      return this;
    }

    /** Sets the random source; default a thread-local generator. */
    public Builder random(RandomGenerator random) {
      this.random = Objects.requireNonNull(random, "random");
      return this;
    }

    /** Sets the candidates tried before the degraded scan; default 5. */
    public Builder maxEffort(int maxEffort) {
      if (maxEffort < 1) {
        throw new IllegalArgumentException("maxEffort: " + maxEffort + " (expected: > 0)");
      }
      this.maxEffort = maxEffort;
      return this;
    }

    /** Sets whether to pick a busy or closed node rather than fail; default false. */
    public Builder panicPick(boolean panicPick) {
      this.panicPick = panicPick;
      return this;
    }

    /**
     * Sets the peak-EWMA decay time constant; default 10 s; at most {@link #MAX_DURATION}
     * (about 292 years), longer ones are rejected.
     */
    public Builder decayTime(Duration decayTime) {
      Objects.requireNonNull(decayTime, "decayTime");
      if (decayTime.isNegative() || decayTime.isZero()) {
        throw new IllegalArgumentException("decayTime: " + decayTime + " (expected: > 0)");
      }
      this.decayTime = checkMax("decayTime", decayTime);
      return this;
    }

    /**
     * Sets the RTT assumed for a node that has not answered yet; default 30 ms; at most {@link
     * #MAX_DURATION} (about 292 years), longer ones are rejected.
     */
    public Builder defaultRtt(Duration defaultRtt) {
      Objects.requireNonNull(defaultRtt, "defaultRtt");
      if (defaultRtt.isNegative()) {
        throw new IllegalArgumentException("defaultRtt: " + defaultRtt + " (expected: >= 0)");
      }
      this.defaultRtt = checkMax("defaultRtt", defaultRtt);
      return this;
    }

    private static Duration checkMax(String name, Duration d) {
      if (d.compareTo(MAX_DURATION) > 0) {
        throw new IllegalArgumentException(name + ": " + d
            + " (expected: at most Long.MAX_VALUE nanoseconds, about 292 years)");
      }
      return d;
    }

    /** Sets nginx's {@code max_fails} for SWRR; default 1. */
    public Builder maxFails(int maxFails) {
      if (maxFails < 1) {
        throw new IllegalArgumentException("maxFails: " + maxFails + " (expected: > 0)");
      }
      this.maxFails = maxFails;
      return this;
    }

    /** Sets how much a failure raises peak EWMA's estimate at most (&gt;= 1); default 2.0. */
    public Builder failurePenalty(double failurePenalty) {
      if (!(failurePenalty >= 1) || Double.isInfinite(failurePenalty)) {
        throw new IllegalArgumentException(
            "failurePenalty: " + failurePenalty + " (expected: >= 1, 1 for off)");
      }
      this.failurePenalty = failurePenalty;
      return this;
    }

    /**
     * Turns slow start on over {@code window} with aggression 1.0 and a 10% floor, or off with
     * {@link Duration#ZERO} (the default); see {@link BalancerConfig#slowStartWindow()}.
     */
    public Builder slowStart(Duration window) {
      return slowStart(window, 1.0, 10);
    }

    /**
     * Sets slow start: its window ({@link Duration#ZERO} for off, the default), aggression
     * (&gt; 0, default 1.0) and floor in percent of the weight (&gt; 0 and &lt;= 100, fractions
     * allowed, default 10); see {@link BalancerConfig#slowStartWindow()} and {@link
     * BalancerConfig#slowStartMinWeightPercent()}.
     */
    public Builder slowStart(Duration window, double aggression, double minWeightPercent) {
      return slowStartWindow(window).slowStartAggression(aggression)
          .slowStartMinWeightPercent(minWeightPercent);
    }

    /** Sets the slow-start window, {@link Duration#ZERO} for off (the default). */
    public Builder slowStartWindow(Duration window) {
      Objects.requireNonNull(window, "window");
      if (window.isNegative()) {
        throw new IllegalArgumentException(
            "slowStartWindow: " + window + " (expected: >= 0, 0 for off)");
      }
      this.slowStartWindow = checkMax("slowStartWindow", window);
      return this;
    }

    /** Sets the slow-start ramp's aggression, &gt; 0; default 1.0 (linear). */
    public Builder slowStartAggression(double aggression) {
      if (!(aggression > 0) || Double.isInfinite(aggression)) {
        throw new IllegalArgumentException(
            "slowStartAggression: " + aggression + " (expected: > 0)");
      }
      this.slowStartAggression = aggression;
      return this;
    }

    /** Sets the slow-start ramp's floor in percent of the weight, in (0, 100]; default 10. */
    public Builder slowStartMinWeightPercent(double minWeightPercent) {
      if (!(minWeightPercent > 0 && minWeightPercent <= 100)) {
        throw new IllegalArgumentException("slowStartMinWeightPercent: " + minWeightPercent
            + " (expected: > 0 and <= 100)");
      }
      this.slowStartMinWeightPercent = minWeightPercent;
      return this;
    }

    /**
     * Sets this client's coordinate for deterministic aperture: index {@code index} of {@code
     * count} clients (0 to count − 1); default 0 of 1.
     */
    public Builder apertureCoordinate(int index, int count) {
      checkCoordinate(index, count);
      this.apertureIndex = index;
      this.apertureCount = count;
      return this;
    }

    /** Sets this client's index among its peers, &gt;= 0 and below the count; default 0. */
    public Builder apertureIndex(int index) {
      if (index < 0) {
        throw new IllegalArgumentException("aperture.clientIndex: " + index + " (expected: >= 0)");
      }
      this.apertureIndex = index;
      return this;
    }

    /** Sets how many clients share the servers, &gt; 0; default 1. */
    public Builder apertureCount(int count) {
      if (count < 1) {
        throw new IllegalArgumentException("aperture.clientCount: " + count + " (expected: > 0)");
      }
      this.apertureCount = count;
      return this;
    }

    /** Returns the settings. */
    public BalancerConfig build() {
      checkCoordinate(apertureIndex, apertureCount);
      return new BalancerConfig(this);
    }
  }
}
