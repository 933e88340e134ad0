package dev.ballast.netty.outlier;

import dev.ballast.core.config.ValueType;
import dev.ballast.netty.internal.Durations;
import java.time.Duration;

/**
 * Settings of per-endpoint outlier detection (after Envoy's outlier detection and Finagle's
 * failure accrual). An endpoint is ejected (taken out of the balancer's choice) after {@link
 * #consecutiveFailures()} failures in a row, or when its success rate over an interval falls
 * below {@link #successRateThreshold()} with at least {@link #successRateMinRequests()} requests.
 * It stays out for {@code baseEjectionTime * 2^(ejections - 1)}, capped at {@link
 * #maxEjectionTime()}, times a random factor in {@code [1 - jitter, 1 + jitter]}; never more than
 * {@link #maxEjectionPercent()} of the endpoints are out at once.
 *
 * <table>
 *   <caption>Settings and defaults</caption>
 *   <tr><th>setting</th><th>default</th></tr>
 *   <tr><td>consecutiveFailures</td><td>5</td></tr>
 *   <tr><td>successRateThreshold</td><td>0.5 (0 disables)</td></tr>
 *   <tr><td>successRateMinRequests</td><td>20</td></tr>
 *   <tr><td>interval</td><td>10 s (success-rate window)</td></tr>
 *   <tr><td>baseEjectionTime</td><td>5 s</td></tr>
 *   <tr><td>maxEjectionTime</td><td>5 min</td></tr>
 *   <tr><td>jitter</td><td>0.2</td></tr>
 *   <tr><td>maxEjectionPercent</td><td>50</td></tr>
 * </table>
 */
public final class OutlierDetection {

  private static final OutlierDetection DEFAULTS = builder().build();
  private static final OutlierDetection DISABLED = builder().enabled(false).build();

  final boolean enabled;
  final int consecutiveFailures;
  final double successRateThreshold;
  final int successRateMinRequests;
  final Duration interval;
  final Duration baseEjectionTime;
  final Duration maxEjectionTime;
  final double jitter;
  final int maxEjectionPercent;

  private OutlierDetection(Builder b) {
    this.enabled = b.enabled;
    this.consecutiveFailures = b.consecutiveFailures;
    this.successRateThreshold = b.successRateThreshold;
    this.successRateMinRequests = b.successRateMinRequests;
    this.interval = b.interval;
    this.baseEjectionTime = b.baseEjectionTime;
    this.maxEjectionTime = b.maxEjectionTime;
    this.jitter = b.jitter;
    this.maxEjectionPercent = b.maxEjectionPercent;
  }

  /** Returns the defaults (enabled). */
  public static OutlierDetection defaults() {
    return DEFAULTS;
  }

  /** Returns settings that never eject. */
  public static OutlierDetection disabled() {
    return DISABLED;
  }

  /** Returns a builder holding the defaults. */
  public static Builder builder() {
    return new Builder();
  }

  /** Returns whether detection is on; default true. */
  public boolean enabled() {
    return enabled;
  }

  /** Returns the failures in a row that eject; default 5. */
  public int consecutiveFailures() {
    return consecutiveFailures;
  }

  /** Returns the success rate below which an endpoint is ejected; default 0.5, 0 disables. */
  public double successRateThreshold() {
    return successRateThreshold;
  }

  /** Returns the requests an interval needs before its success rate counts; default 20. */
  public int successRateMinRequests() {
    return successRateMinRequests;
  }

  /** Returns the success-rate window; default 10 s. */
  public Duration interval() {
    return interval;
  }

  /** Returns the first ejection's duration; default 5 s. */
  public Duration baseEjectionTime() {
    return baseEjectionTime;
  }

  /** Returns the longest ejection; default 5 min. */
  public Duration maxEjectionTime() {
    return maxEjectionTime;
  }

  /** Returns the jitter share of ejection durations; default 0.2. */
  public double jitter() {
    return jitter;
  }

  /** Returns the most endpoints ejected at once, in percent (at least one of two); default 50. */
  public int maxEjectionPercent() {
    return maxEjectionPercent;
  }

  @Override
  public String toString() {
    return "OutlierDetection{enabled=" + enabled + ", consecutiveFailures=" + consecutiveFailures
        + ", successRateThreshold=" + successRateThreshold + ", minRequests="
        + successRateMinRequests + ", interval=" + interval + ", base=" + baseEjectionTime
        + ", max=" + maxEjectionTime + ", jitter=" + jitter + ", maxEjectionPercent="
        + maxEjectionPercent + "}";
  }

  /**
   * Builds {@link OutlierDetection}; every setter checks its argument; durations longer than 100
   * years count as 100 years.
   */
  public static final class Builder {
    private boolean enabled = true;
    private int consecutiveFailures = 5;
    private double successRateThreshold = 0.5;
    private int successRateMinRequests = 20;
    private Duration interval = Duration.ofSeconds(10);
    private Duration baseEjectionTime = Duration.ofSeconds(5);
    private Duration maxEjectionTime = Duration.ofMinutes(5);
    private double jitter = 0.2;
    private int maxEjectionPercent = 50;

    private Builder() {}

    /** Turns detection on or off; default on. */
    public Builder enabled(boolean enabled) {
      this.enabled = enabled;
      return this;
    }

    /** Sets the failures in a row that eject; default 5. */
    public Builder consecutiveFailures(int n) {
      if (n < 1) {
        throw new IllegalArgumentException("consecutiveFailures: " + n + " (expected: > 0)");
      }
      this.consecutiveFailures = n;
      return this;
    }

    /** Sets the success-rate threshold in [0, 1]; default 0.5, 0 disables. */
    public Builder successRateThreshold(double t) {
      if (!(t >= 0 && t <= 1)) {
        throw new IllegalArgumentException("successRateThreshold: " + t + " (expected: in [0, 1])");
      }
      this.successRateThreshold = t;
      return this;
    }

    /** Sets the requests an interval needs before its success rate counts; default 20. */
    public Builder successRateMinRequests(int n) {
      if (n < 1) {
        throw new IllegalArgumentException("successRateMinRequests: " + n + " (expected: > 0)");
      }
      this.successRateMinRequests = n;
      return this;
    }

    /** Sets the success-rate window; default 10 s. */
    public Builder interval(Duration d) {
      this.interval = Durations.positive("interval", d);
      return this;
    }

    /** Sets the first ejection's duration; default 5 s. */
    public Builder baseEjectionTime(Duration d) {
      this.baseEjectionTime = Durations.positive("baseEjectionTime", d);
      return this;
    }

    /** Sets the longest ejection; default 5 min. */
    public Builder maxEjectionTime(Duration d) {
      this.maxEjectionTime = Durations.positive("maxEjectionTime", d);
      return this;
    }

    /** Sets the jitter share in [0, 1); default 0.2. */
    public Builder jitter(double j) {
      if (!(j >= 0 && j < 1)) {
        throw new IllegalArgumentException("jitter: " + j + " (expected: in [0, 1))");
      }
      this.jitter = j;
      return this;
    }

    /** Sets the most endpoints ejected at once, in percent 0-100; default 50. */
    public Builder maxEjectionPercent(int p) {
      if (p < 0 || p > 100) {
        throw new IllegalArgumentException("maxEjectionPercent: " + p + " (expected: 0-100)");
      }
      this.maxEjectionPercent = p;
      return this;
    }

    /**
     * Returns the settings.
     *
     * @throws IllegalArgumentException if the base ejection time exceeds the maximum
     */
    public OutlierDetection build() {
      if (baseEjectionTime.compareTo(maxEjectionTime) > 0) {
        throw new IllegalArgumentException("baseEjectionTime: "
            + ValueType.format(baseEjectionTime) + " (expected: <= maxEjectionTime "
            + ValueType.format(maxEjectionTime) + ")");
      }
      return new OutlierDetection(this);
    }
  }
}
