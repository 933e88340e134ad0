package dev.ballast.core.health;

import dev.ballast.core.config.Option;
import dev.ballast.core.config.OptionSet;
import dev.ballast.core.config.ValueType;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * Immutable settings of active health checks, under Envoy's names: every endpoint is checked
 * every {@link #interval()}, a check that takes longer than {@link #timeout()} fails, {@link
 * #unhealthyThreshold()} failures in a row make the endpoint unhealthy and {@link
 * #healthyThreshold()} successes in a row make it healthy again. An endpoint's first check comes
 * at a random time within {@link #initialJitter()} of its arrival, and each later one {@code
 * interval} plus a random share of {@link #intervalJitter()} after the previous one ended, so that
 * thousands of endpoints are checked spread over the interval, not all at once; at most {@link
 * #maxInFlight()} checks run at once. Its options by name are {@link #OPTIONS}.
 *
 * <table>
 *   <caption>Settings and defaults</caption>
 *   <tr><th>setting</th><th>default</th></tr>
 *   <tr><td>interval</td><td>5 s</td></tr>
 *   <tr><td>timeout</td><td>1 s</td></tr>
 *   <tr><td>unhealthyThreshold</td><td>1</td></tr>
 *   <tr><td>healthyThreshold</td><td>1</td></tr>
 *   <tr><td>initialJitter</td><td>5 s (one default interval)</td></tr>
 *   <tr><td>intervalJitter</td><td>0 s</td></tr>
 *   <tr><td>maxInFlight</td><td>64</td></tr>
 * </table>
 */
public final class HealthCheckConfig {

  private static final Duration MAX = Duration.ofDays(1);
  private static final HealthCheckConfig DEFAULTS = builder().build();

  /** The options by name, each with its builder's default and check. */
  public static final OptionSet<HealthCheckConfig, Builder> OPTIONS = OptionSet.of(
      "healthCheck", HealthCheckConfig::builder, Builder::build, List.of(
          Option.of("interval", ValueType.DURATION, HealthCheckConfig::interval,
              Builder::interval, "10s", "0s"),
          Option.of("timeout", ValueType.DURATION, HealthCheckConfig::timeout,
              Builder::timeout, "2s", "0s"),
          Option.of("unhealthyThreshold", ValueType.INT, HealthCheckConfig::unhealthyThreshold,
              Builder::unhealthyThreshold, "3", "0"),
          Option.of("healthyThreshold", ValueType.INT, HealthCheckConfig::healthyThreshold,
              Builder::healthyThreshold, "2", "0"),
          Option.of("initialJitter", ValueType.DURATION, HealthCheckConfig::initialJitter,
              Builder::initialJitter, "1s", "-1s"),
          Option.of("intervalJitter", ValueType.DURATION, HealthCheckConfig::intervalJitter,
              Builder::intervalJitter, "500ms", "-1s"),
          Option.of("maxInFlight", ValueType.INT, HealthCheckConfig::maxInFlight,
              Builder::maxInFlight, "16", "0")));

  private final Duration interval;
  private final Duration timeout;
  private final int unhealthyThreshold;
  private final int healthyThreshold;
  private final Duration initialJitter;
  private final Duration intervalJitter;
  private final int maxInFlight;

  private HealthCheckConfig(Builder b) {
    this.interval = b.interval;
    this.timeout = b.timeout;
    this.unhealthyThreshold = b.unhealthyThreshold;
    this.healthyThreshold = b.healthyThreshold;
    this.initialJitter = b.initialJitter;
    this.intervalJitter = b.intervalJitter;
    this.maxInFlight = b.maxInFlight;
  }

  /** Returns the defaults (see the class comment). */
  public static HealthCheckConfig defaults() {
    return DEFAULTS;
  }

  /** Returns a builder holding the defaults. */
  public static Builder builder() {
    return new Builder();
  }

  /** Returns the time between the end of a check and the start of the next; default 5 s. */
  public Duration interval() {
    return interval;
  }

  /** Returns how long a check may take before it counts as failed; default 1 s. */
  public Duration timeout() {
    return timeout;
  }

  /** Returns the failed checks in a row that make an endpoint unhealthy; default 1. */
  public int unhealthyThreshold() {
    return unhealthyThreshold;
  }

  /** Returns the passed checks in a row that make an unhealthy endpoint healthy; default 1. */
  public int healthyThreshold() {
    return healthyThreshold;
  }

  /** Returns the span over which a new endpoint's first check is spread; default 5 s. */
  public Duration initialJitter() {
    return initialJitter;
  }

  /** Returns the most random time added to each interval; default 0 s. */
  public Duration intervalJitter() {
    return intervalJitter;
  }

  /** Returns the most checks running at once, over all endpoints; default 64. */
  public int maxInFlight() {
    return maxInFlight;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof HealthCheckConfig c && interval.equals(c.interval)
        && timeout.equals(c.timeout) && unhealthyThreshold == c.unhealthyThreshold
        && healthyThreshold == c.healthyThreshold && initialJitter.equals(c.initialJitter)
        && intervalJitter.equals(c.intervalJitter) && maxInFlight == c.maxInFlight;
  }

  @Override
  public int hashCode() {
    return Objects.hash(interval, timeout, unhealthyThreshold, healthyThreshold, initialJitter,
        intervalJitter, maxInFlight);
  }

  @Override
  public String toString() {
    return "HealthCheckConfig{interval=" + interval + ", timeout=" + timeout
        + ", unhealthyThreshold=" + unhealthyThreshold + ", healthyThreshold="
        + healthyThreshold + ", initialJitter=" + initialJitter + ", intervalJitter="
        + intervalJitter + ", maxInFlight=" + maxInFlight + "}";
  }

  /** Builds {@link HealthCheckConfig}; every setter checks its argument. */
  public static final class Builder {
    private Duration interval = Duration.ofSeconds(5);
    private Duration timeout = Duration.ofSeconds(1);
    private int unhealthyThreshold = 1;
    private int healthyThreshold = 1;
    private Duration initialJitter = Duration.ofSeconds(5);
    private Duration intervalJitter = Duration.ZERO;
    private int maxInFlight = 64;

    private Builder() {}

    /** Sets the interval, 1 ms to 1 day; default 5 s. */
    public Builder interval(Duration d) {
      this.interval = bounded("interval", d, Duration.ofMillis(1));
      return this;
    }

    /** Sets the timeout, 1 ms to 1 day; default 1 s. */
    public Builder timeout(Duration d) {
      this.timeout = bounded("timeout", d, Duration.ofMillis(1));
      return this;
    }

    /** Sets the failures in a row that make an endpoint unhealthy, &gt; 0; default 1. */
    public Builder unhealthyThreshold(int n) {
      this.unhealthyThreshold = positive("unhealthyThreshold", n);
      return this;
    }

    /** Sets the successes in a row that make an endpoint healthy again, &gt; 0; default 1. */
    public Builder healthyThreshold(int n) {
      this.healthyThreshold = positive("healthyThreshold", n);
      return this;
    }

    /** Sets the span of a new endpoint's first check, 0 to 1 day; default 5 s. */
    public Builder initialJitter(Duration d) {
      this.initialJitter = bounded("initialJitter", d, Duration.ZERO);
      return this;
    }

    /** Sets the most random time added to each interval, 0 to 1 day; default 0 s. */
    public Builder intervalJitter(Duration d) {
      this.intervalJitter = bounded("intervalJitter", d, Duration.ZERO);
      return this;
    }

    /** Sets the most checks at once, &gt; 0; default 64. */
    public Builder maxInFlight(int n) {
      this.maxInFlight = positive("maxInFlight", n);
      return this;
    }

    /** Returns the settings. */
    public HealthCheckConfig build() {
      return new HealthCheckConfig(this);
    }

    private static Duration bounded(String name, Duration d, Duration min) {
      Objects.requireNonNull(d, name);
      if (d.compareTo(min) < 0 || d.compareTo(MAX) > 0) {
        throw new IllegalArgumentException(name + ": " + ValueType.format(d) + " (expected: "
            + ValueType.format(min) + " to " + ValueType.format(MAX) + ")");
      }
      return d;
    }

    private static int positive(String name, int n) {
      if (n < 1) {
        throw new IllegalArgumentException(name + ": " + n + " (expected: > 0)");
      }
      return n;
    }
  }
}
