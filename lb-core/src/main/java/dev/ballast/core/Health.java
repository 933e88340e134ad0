package dev.ballast.core;

import java.util.Locale;
import java.util.Objects;

/**
 * An endpoint's health, the one notion every balancer reads, whoever says it: the registry (the
 * endpoint's {@code health} label), an active check, or outlier detection. Envoy's three host
 * health states: a {@link #DEGRADED} endpoint takes traffic only when healthy ones cannot take
 * it all; an {@link #UNHEALTHY} one reads as {@link Availability#CLOSED}, so a balancer uses it
 * only in panic mode.
 */
public enum Health {
  /** Takes its full share; the default. */
  HEALTHY,
  /** Up but impaired: used after healthy endpoints (Envoy's degraded hosts). */
  DEGRADED,
  /** Down: picked only in panic mode. */
  UNHEALTHY;

  /**
   * Parses {@code healthy}, {@code degraded} or {@code unhealthy}, in any case.
   *
   * @throws IllegalArgumentException naming the value and the expected ones
   */
  public static Health parse(String text) {
    Objects.requireNonNull(text, "health");
    switch (text.toLowerCase(Locale.ROOT)) {
      case "healthy":
        return HEALTHY;
      case "degraded":
        return DEGRADED;
      case "unhealthy":
        return UNHEALTHY;
      default:
        throw new IllegalArgumentException(
            "health: " + text + " (expected: healthy, degraded or unhealthy)");
    }
  }

  /** Returns the worse of this and {@code other}. */
  public Health worst(Health other) {
    return other.ordinal() > ordinal() ? other : this;
  }

  /** Returns the lower-case name, as {@link #parse} reads it. */
  @Override
  public String toString() {
    return name().toLowerCase(Locale.ROOT);
  }
}
