package dev.ballast.netty;

import dev.ballast.core.subset.RequestLabels;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;

/**
 * Per-call settings: a timeout that overrides the client's, whether the request is idempotent
 * (then any failure may be retried, not only those that never reached a server), routing labels
 * for subset selection (see {@link BallastClient.Builder#subsets}), and the key a balancer that
 * picks by key ({@code ring_hash}, {@code ketama}, {@code maglev}) sends the call by.
 *
 * <p>Build the options once per kind of call and reuse them: the labels are kept as lb-core's
 * {@link RequestLabels} (sorted, hashes precomputed), so routing by them allocates nothing.
 *
 * <p>Immutable; {@link #DEFAULT} has no timeout override, is not idempotent and has no labels.
 */
public final class CallOptions {

  /** No timeout override, not idempotent, no labels. */
  public static final CallOptions DEFAULT =
      new CallOptions(null, false, RequestLabels.empty(), null);

  private final Duration timeout;
  private final boolean idempotent;
  private final RequestLabels labels;
  private final String key;

  private CallOptions(Duration timeout, boolean idempotent, RequestLabels labels, String key) {
    this.timeout = timeout;
    this.idempotent = idempotent;
    this.labels = labels;
    this.key = key;
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
    return new CallOptions(timeout, idempotent, labels, key);
  }

  /** Returns a copy marked idempotent or not. */
  public CallOptions withIdempotent(boolean idempotent) {
    return new CallOptions(timeout, idempotent, labels, key);
  }

  /**
   * Returns a copy with routing labels, matched against endpoint labels by subset selection.
   *
   * @throws IllegalArgumentException if a key or value is empty
   */
  public CallOptions withLabels(Map<String, String> labels) {
    return new CallOptions(timeout, idempotent, RequestLabels.of(labels), key);
  }

  /** Returns a copy with routing labels already built (reuse one instance per kind of call). */
  public CallOptions withLabels(RequestLabels labels) {
    return new CallOptions(timeout, idempotent, Objects.requireNonNull(labels, "labels"), key);
  }

  /**
   * Returns a copy with the call's key: a balancer that picks by key ({@code ring_hash}, {@code
   * ketama}, {@code maglev}) sends every call of the same key to the same endpoint while it is
   * open; other balancers ignore it. Hashing an ASCII key allocates nothing.
   */
  public CallOptions withKey(String key) {
    return new CallOptions(timeout, idempotent, labels, Objects.requireNonNull(key, "key"));
  }

  /** Returns the call's key, or {@code null} (the default) for none. */
  public String key() {
    return key;
  }

  /** Returns the timeout override, or {@code null} to use the client's. */
  public Duration timeout() {
    return timeout;
  }

  /** Returns whether the request is idempotent; default false. */
  public boolean isIdempotent() {
    return idempotent;
  }

  /** Returns the routing labels as a sorted map (a new map on every call); empty by default. */
  public Map<String, String> labels() {
    return labels.asMap();
  }

  /** Returns the routing labels as lb-core's {@link RequestLabels}; empty by default. */
  public RequestLabels requestLabels() {
    return labels;
  }

  @Override
  public String toString() {
    return "CallOptions{timeout=" + timeout + ", idempotent=" + idempotent + ", labels=" + labels
        + (key == null ? "" : ", key=" + key) + "}";
  }
}
