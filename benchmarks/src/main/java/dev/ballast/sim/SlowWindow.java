package dev.ballast.sim;

import java.util.Objects;

/**
 * A period during which one backend answers with another latency, or fails: requests that reach
 * backend {@code backend} at a virtual time in {@code [startNanos, endNanos)} take {@code
 * latency}, and with {@code fails} their answer is an error.
 *
 * @param backend the backend's index, from 0
 * @param startNanos when the window opens, from the start of the run
 * @param endNanos when it closes (exclusive)
 * @param latency the latency inside the window
 * @param fails whether answers inside the window are errors
 */
public record SlowWindow(int backend, long startNanos, long endNanos, LatencyDistribution latency,
    boolean fails) {

  /** A window of slow answers, not errors. */
  public SlowWindow(int backend, long startNanos, long endNanos, LatencyDistribution latency) {
    this(backend, startNanos, endNanos, latency, false);
  }

  /** Checks the fields. */
  public SlowWindow {
    if (backend < 0) {
      throw new IllegalArgumentException("slow window backend: " + backend + " (expected: >= 0)");
    }
    if (startNanos < 0 || endNanos <= startNanos) {
      throw new IllegalArgumentException("slow window: " + Durations.format(startNanos) + " to "
          + Durations.format(endNanos) + " (expected: 0 <= start < end)");
    }
    Objects.requireNonNull(latency, "latency");
  }

  /**
   * Parses {@code BACKEND:START:END:LATENCY}, e.g. {@code 0:15s:45s:2s} (the latency may be any
   * form {@link LatencyDistribution#parse} takes, e.g. {@code 0:15s:45s:normal:2s,50ms}).
   */
  public static SlowWindow parse(String text) {
    return parse(text, false);
  }

  /** Parses {@code BACKEND:START:END:LATENCY} as {@link #parse(String)}, failing or not. */
  public static SlowWindow parse(String text, boolean fails) {
    String[] p = text.split(":", 4);
    if (p.length != 4) {
      throw new IllegalArgumentException(
          "slow window: " + text + " (expected: BACKEND:START:END:LATENCY, e.g. 0:15s:45s:2s)");
    }
    int backend;
    try {
      backend = Integer.parseInt(p[0].trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          "slow window backend: " + p[0] + " in " + text + " (expected: an index from 0)", e);
    }
    return new SlowWindow(backend, Durations.parseNanos(p[1]), Durations.parseNanos(p[2]),
        LatencyDistribution.parse(p[3]), fails);
  }

  /** Returns whether a request reaching the backend at {@code nanos} falls in the window. */
  public boolean covers(long nanos) {
    return nanos >= startNanos && nanos < endNanos;
  }

  @Override
  public String toString() {
    return "backend " + backend + (fails ? " fails in " : " ") + latency + " from "
        + Durations.format(startNanos) + " to " + Durations.format(endNanos);
  }
}
