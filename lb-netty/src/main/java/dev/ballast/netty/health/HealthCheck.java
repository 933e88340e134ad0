package dev.ballast.netty.health;

import dev.ballast.core.config.Option;
import dev.ballast.core.config.OptionSet;
import dev.ballast.core.config.ValueType;
import dev.ballast.core.health.HealthCheckConfig;
import java.util.List;
import java.util.Objects;

/**
 * Settings of a client's active health checks (off by default). Each endpoint is checked on its
 * own connection, opened for the check and closed after it, on the client's event loops: an HTTP
 * client sends {@code GET} {@link #path()} in its own protocol (HTTP/1.1 or HTTP/2, with its TLS
 * settings) and a 2xx answer passes; a framed client sends a {@link
 * dev.ballast.netty.framed.Frame#PING} and a ping back passes (a {@link
 * dev.ballast.netty.framed.FramedServer} answers it). A failed check (another status, an error,
 * no answer within the timeout, no connection) counts towards the unhealthy threshold; an
 * unhealthy endpoint takes no calls until it passes again. Timing, thresholds and bounds are
 * lb-core's {@link HealthCheckConfig}. Its options by name are {@link #OPTIONS}, under {@code
 * healthCheck.} in a client's options.
 *
 * <table>
 *   <caption>Settings and defaults</caption>
 *   <tr><th>setting</th><th>default</th></tr>
 *   <tr><td>enabled</td><td>false</td></tr>
 *   <tr><td>path</td><td>/health</td></tr>
 *   <tr><td>interval, timeout, thresholds, jitter, maxInFlight</td>
 *       <td>{@link HealthCheckConfig#defaults()}</td></tr>
 * </table>
 */
public final class HealthCheck {

  private static final HealthCheck DISABLED = builder().build();

  /** The options by name: {@code enabled}, {@code path} and {@link HealthCheckConfig#OPTIONS}. */
  public static final OptionSet<HealthCheck, Builder> OPTIONS = OptionSet.of("healthCheck",
      HealthCheck::builder, Builder::build, List.of(
          Option.of("enabled", ValueType.BOOLEAN, HealthCheck::enabled, Builder::enabled,
              "true", "yes"),
          Option.of("path", ValueType.STRING, HealthCheck::path, Builder::path,
              "/ready", "health")))
      .with("", HealthCheckConfig.OPTIONS, HealthCheck::config, Builder::config);

  private final boolean enabled;
  private final String path;
  private final HealthCheckConfig config;

  private HealthCheck(Builder b) {
    this.enabled = b.enabled;
    this.path = b.path;
    this.config = b.config;
  }

  /** Returns the settings that check nothing (the default). */
  public static HealthCheck disabled() {
    return DISABLED;
  }

  /** Returns a builder holding the defaults: off, {@code /health}, lb-core's defaults. */
  public static Builder builder() {
    return new Builder();
  }

  /** Returns whether endpoints are checked; default false. */
  public boolean enabled() {
    return enabled;
  }

  /** Returns the path an HTTP client asks for; default {@code /health}. */
  public String path() {
    return path;
  }

  /** Returns the timing, thresholds and bounds; default {@link HealthCheckConfig#defaults()}. */
  public HealthCheckConfig config() {
    return config;
  }

  @Override
  public String toString() {
    return "HealthCheck{enabled=" + enabled + ", path=" + path + ", " + config + "}";
  }

  /** Builds {@link HealthCheck}; every setter checks its argument. */
  public static final class Builder {
    private boolean enabled;
    private String path = "/health";
    private HealthCheckConfig config = HealthCheckConfig.defaults();

    private Builder() {}

    /** Turns the checks on or off; default off. */
    public Builder enabled(boolean enabled) {
      this.enabled = enabled;
      return this;
    }

    /** Sets the HTTP path, starting with {@code /}; default {@code /health}. */
    public Builder path(String path) {
      Objects.requireNonNull(path, "path");
      if (!path.startsWith("/") || path.chars().anyMatch(c -> c <= ' ' || c == 0x7f)) {
        throw new IllegalArgumentException("path: " + path
            + " (expected: an absolute path starting with /, no spaces or control characters)");
      }
      this.path = path;
      return this;
    }

    /** Sets the timing, thresholds and bounds; default {@link HealthCheckConfig#defaults()}. */
    public Builder config(HealthCheckConfig config) {
      this.config = Objects.requireNonNull(config, "config");
      return this;
    }

    /** Returns the settings. */
    public HealthCheck build() {
      return new HealthCheck(this);
    }
  }
}
