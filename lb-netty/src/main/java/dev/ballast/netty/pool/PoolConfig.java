package dev.ballast.netty.pool;

import dev.ballast.netty.internal.Durations;
import java.time.Duration;

/**
 * Settings of each endpoint's connection pool. Immutable; durations longer than 100
 * years count as 100 years; {@link #defaults()} holds:
 *
 * <table>
 *   <caption>Settings and defaults</caption>
 *   <tr><th>setting</th><th>default</th></tr>
 *   <tr><td>{@link #connectTimeout()}</td><td>2 s</td></tr>
 *   <tr><td>{@link #minConnections()}</td><td>0 (opened on demand)</td></tr>
 *   <tr><td>{@link #maxConnections()}</td><td>8</td></tr>
 *   <tr><td>{@link #maxInFlightPerConnection()}</td><td>256 (framed; HTTP/1.1 always 1)</td></tr>
 *   <tr><td>{@link #maxPendingAcquires()}</td><td>1024</td></tr>
 *   <tr><td>{@link #acquireTimeout()}</td><td>5 s (never past the call's deadline)</td></tr>
 *   <tr><td>{@link #idleTimeout()}</td><td>60 s</td></tr>
 *   <tr><td>{@link #maxLifetime()}</td><td>30 min, {@link Duration#ZERO} for none</td></tr>
 *   <tr><td>{@link #lifetimeJitter()}</td><td>0.1: each connection lives 90-100% of it</td></tr>
 * </table>
 */
public final class PoolConfig {

  private static final PoolConfig DEFAULTS = builder().build();

  private final Duration connectTimeout;
  private final int minConnections;
  private final int maxConnections;
  private final int maxInFlightPerConnection;
  private final int maxPendingAcquires;
  private final Duration acquireTimeout;
  private final Duration idleTimeout;
  private final Duration maxLifetime;
  private final double lifetimeJitter;

  private PoolConfig(Builder b) {
    this.connectTimeout = b.connectTimeout;
    this.minConnections = b.minConnections;
    this.maxConnections = b.maxConnections;
    this.maxInFlightPerConnection = b.maxInFlightPerConnection;
    this.maxPendingAcquires = b.maxPendingAcquires;
    this.acquireTimeout = b.acquireTimeout;
    this.idleTimeout = b.idleTimeout;
    this.maxLifetime = b.maxLifetime;
    this.lifetimeJitter = b.lifetimeJitter;
  }

  /** Returns the defaults. */
  public static PoolConfig defaults() {
    return DEFAULTS;
  }

  /** Returns a builder holding the defaults. */
  public static Builder builder() {
    return new Builder();
  }

  /** Returns how long opening a connection may take; default 2 s. */
  public Duration connectTimeout() {
    return connectTimeout;
  }

  /** Returns how many connections the pool keeps open even when idle; default 0. */
  public int minConnections() {
    return minConnections;
  }

  /** Returns the most connections open (or opening) at once; default 8. */
  public int maxConnections() {
    return maxConnections;
  }

  /** Returns the cap of requests in flight on one multiplexed connection; default 256. */
  public int maxInFlightPerConnection() {
    return maxInFlightPerConnection;
  }

  /** Returns how many acquires may wait for a connection; default 1024. More overflow. */
  public int maxPendingAcquires() {
    return maxPendingAcquires;
  }

  /** Returns how long an acquire may wait; default 5 s, and never past the call's deadline. */
  public Duration acquireTimeout() {
    return acquireTimeout;
  }

  /** Returns how long a connection may stay unused before it is closed; default 60 s. */
  public Duration idleTimeout() {
    return idleTimeout;
  }

  /** Returns the most a connection lives ({@link Duration#ZERO}: forever); default 30 min. */
  public Duration maxLifetime() {
    return maxLifetime;
  }

  /** Returns the share of the lifetime randomly taken off each connection's; default 0.1. */
  public double lifetimeJitter() {
    return lifetimeJitter;
  }

  @Override
  public String toString() {
    return "PoolConfig{connectTimeout=" + connectTimeout + ", min=" + minConnections + ", max="
        + maxConnections + ", maxInFlightPerConnection=" + maxInFlightPerConnection
        + ", maxPendingAcquires=" + maxPendingAcquires + ", acquireTimeout=" + acquireTimeout
        + ", idleTimeout=" + idleTimeout + ", maxLifetime=" + maxLifetime + ", jitter="
        + lifetimeJitter + "}";
  }

  /** Builds a {@link PoolConfig}; every setter checks its argument. */
  public static final class Builder {
    private Duration connectTimeout = Duration.ofSeconds(2);
    private int minConnections;
    private int maxConnections = 8;
    private int maxInFlightPerConnection = 256;
    private int maxPendingAcquires = 1024;
    private Duration acquireTimeout = Duration.ofSeconds(5);
    private Duration idleTimeout = Duration.ofSeconds(60);
    private Duration maxLifetime = Duration.ofMinutes(30);
    private double lifetimeJitter = 0.1;

    private Builder() {}

    /** Sets the connect timeout; default 2 s. */
    public Builder connectTimeout(Duration d) {
      this.connectTimeout = Durations.positive("connectTimeout", d);
      return this;
    }

    /** Sets the connections kept open when idle; default 0. */
    public Builder minConnections(int n) {
      if (n < 0) {
        throw new IllegalArgumentException("minConnections: " + n + " (expected: >= 0)");
      }
      this.minConnections = n;
      return this;
    }

    /** Sets the most connections; default 8. */
    public Builder maxConnections(int n) {
      if (n < 1) {
        throw new IllegalArgumentException("maxConnections: " + n + " (expected: > 0)");
      }
      this.maxConnections = n;
      return this;
    }

    /** Sets the per-connection in-flight cap of multiplexed protocols; default 256. */
    public Builder maxInFlightPerConnection(int n) {
      if (n < 1) {
        throw new IllegalArgumentException(
            "maxInFlightPerConnection: " + n + " (expected: > 0)");
      }
      this.maxInFlightPerConnection = n;
      return this;
    }

    /**
     * Sets the bound of the queue of waiting acquires; default 1024. At least 1: with none, every
     * call that finds no free connection would fail, the first ones included.
     */
    public Builder maxPendingAcquires(int n) {
      if (n < 1) {
        throw new IllegalArgumentException("maxPendingAcquires: " + n + " (expected: > 0)");
      }
      this.maxPendingAcquires = n;
      return this;
    }

    /** Sets the acquire timeout; default 5 s. */
    public Builder acquireTimeout(Duration d) {
      this.acquireTimeout = Durations.positive("acquireTimeout", d);
      return this;
    }

    /** Sets the idle timeout; default 60 s. */
    public Builder idleTimeout(Duration d) {
      this.idleTimeout = Durations.positive("idleTimeout", d);
      return this;
    }

    /** Sets the maximum lifetime ({@link Duration#ZERO} for none); default 30 min. */
    public Builder maxLifetime(Duration d) {
      this.maxLifetime = Durations.nonNegative("maxLifetime", d);
      return this;
    }

    /** Sets the lifetime jitter, a share in [0, 1); default 0.1. */
    public Builder lifetimeJitter(double jitter) {
      if (!(jitter >= 0 && jitter < 1)) {
        throw new IllegalArgumentException("lifetimeJitter: " + jitter + " (expected: in [0, 1))");
      }
      this.lifetimeJitter = jitter;
      return this;
    }

    /**
     * Returns the settings.
     *
     * @throws IllegalArgumentException if minConnections exceeds maxConnections
     */
    public PoolConfig build() {
      if (minConnections > maxConnections) {
        throw new IllegalArgumentException("minConnections: " + minConnections
            + " (expected: <= maxConnections " + maxConnections + ")");
      }
      return new PoolConfig(this);
    }
  }
}
