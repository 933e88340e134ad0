package dev.ballast.netty;

import java.time.Duration;
import java.util.Map;
import java.util.Objects;

/**
 * Per-call settings: a timeout that overrides the client's, whether the request is idempotent
 * (then any failure may be retried, not only those that never reached a server), and routing
 * labels for subset selection.
 *
 * <p>Immutable; {@link #DEFAULT} has no timeout override, is not idempotent and has no labels.
 */
public final class CallOptions {

  /** No timeout override, not idempotent, no labels. */
  public static final CallOptions DEFAULT = new CallOptions(null, false, Map.of());

  private final Duration timeout;
  private final boolean idempotent;
  private final Map<String, String> labels;

  private CallOptions(Duration timeout, boolean idempotent, Map<String, String> labels) {
    this.timeout = timeout;
    this.idempotent = idempotent;
    this.labels = labels;
  }

  /** Returns options for an idempotent request (any failure may be retried). */
  public static CallOptions idempotent() {
    return DEFAULT.withIdempotent(true);
  }

  /** Returns a copy with a timeout for this call, all attempts included. */
  public CallOptions withTimeout(Duration timeout) {
    Objects.requireNonNull(timeout, "timeout");
    if (timeout.isNegative() || timeout.isZero()) {
      throw new IllegalArgumentException("timeout: " + timeout + " (expected: > 0)");
    }
    return new CallOptions(timeout, idempotent, labels);
  }

  /** Returns a copy marked idempotent or not. */
  public CallOptions withIdempotent(boolean idempotent) {
    return new CallOptions(timeout, idempotent, labels);
  }

  /** Returns a copy with routing labels, matched against endpoint labels by subset selection. */
  public CallOptions withLabels(Map<String, String> labels) {
    return new CallOptions(timeout, idempotent, Map.copyOf(labels));
  }

  /** Returns the timeout override, or {@code null} to use the client's. */
  public Duration timeout() {
    return timeout;
  }

  /** Returns whether the request is idempotent; default false. */
  public boolean isIdempotent() {
    return idempotent;
  }

  /** Returns the routing labels; empty by default. */
  public Map<String, String> labels() {
    return labels;
  }

  @Override
  public String toString() {
    return "CallOptions{timeout=" + timeout + ", idempotent=" + idempotent + ", labels=" + labels
        + "}";
  }
}
