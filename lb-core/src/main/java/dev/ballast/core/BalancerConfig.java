package dev.ballast.core;

import dev.ballast.core.internal.ThreadLocalRandomSource;
import java.time.Duration;
import java.util.Objects;
import java.util.random.RandomGenerator;

/**
 * Immutable settings shared by every algorithm; each algorithm reads the ones it needs.
 *
 * <table>
 *   <caption>Settings and defaults</caption>
 *   <tr><th>setting</th><th>default</th><th>used by</th></tr>
 *   <tr><td>{@link #ticker()}</td><td>{@link Ticker#system()}</td><td>P2C peak EWMA</td></tr>
 *   <tr><td>{@link #random()}</td><td>thread-local random</td><td>all (start positions,
 *       P2C, alias draws)</td></tr>
 *   <tr><td>{@link #maxEffort()}</td><td>5</td><td>all: picks tried before the degraded
 *       scan</td></tr>
 *   <tr><td>{@link #panicPick()}</td><td>false</td><td>all: pick a busy or closed node rather
 *       than fail</td></tr>
 *   <tr><td>{@link #decayTime()}</td><td>10 s</td><td>P2C peak EWMA (tau)</td></tr>
 *   <tr><td>{@link #defaultRtt()}</td><td>30 ms</td><td>P2C peak EWMA: new nodes' RTT</td></tr>
 *   <tr><td>{@link #maxFails()}</td><td>1</td><td>SWRR: a failure lowers the effective weight
 *       by weight/maxFails</td></tr>
 * </table>
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

  private BalancerConfig(Builder b) {
    this.ticker = b.ticker;
    this.random = b.random;
    this.maxEffort = b.maxEffort;
    this.panicPick = b.panicPick;
    this.decayTime = b.decayTime;
    this.defaultRtt = b.defaultRtt;
    this.maxFails = b.maxFails;
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
        .maxFails(maxFails);
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

  @Override
  public String toString() {
    return "BalancerConfig{maxEffort=" + maxEffort + ", panicPick=" + panicPick + ", decayTime="
        + decayTime + ", defaultRtt=" + defaultRtt + ", maxFails=" + maxFails + "}";
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

    /** Durations are used in nanoseconds: past {@link Long#MAX_VALUE} they would overflow. */
    private static Duration checkMax(String name, Duration d) {
      if (d.compareTo(MAX_DURATION) > 0) {
        throw new IllegalArgumentException(name + ": " + d + " (expected: <= " + MAX_DURATION
            + ", Long.MAX_VALUE nanoseconds, about 292 years)");
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

    /** Returns the settings. */
    public BalancerConfig build() {
      return new BalancerConfig(this);
    }
  }
}
