package dev.ballast.netty;

import dev.ballast.core.subset.RequestLabels;
import dev.ballast.netty.internal.Durations;
import dev.ballast.netty.retry.Hedging;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.Objects;

/**
 * Per-call settings, the caller's part of the {@link CallContext}: a timeout that overrides the
 * client's, whether the request is idempotent (then any failure may be retried, and the call may
 * be {@linkplain Hedging hedged}), routing labels for subset selection (see {@link
 * BallastClient.Builder#subsets}), the {@linkplain #withKey key} a balancer that picks by key
 * sends the call by, and typed {@linkplain #withAttribute attributes} for any other per-call
 * value a module or filter reads (a tenant...).
 *
 * <p>Build the options once per kind of call and reuse them: the labels are kept as lb-core's
 * {@link RequestLabels} (sorted, hashes precomputed), so routing by them allocates nothing.
 *
 * <p>Immutable; {@link #DEFAULT} has no timeout override, is not idempotent, and has no labels
 * and no attributes.
 */
public final class CallOptions {

  // the call's key, for the balancers that pick by key
  private static final Key<String> KEY = Key.of("key");

  /** No timeout override, not idempotent, no labels, no attributes. */
  public static final CallOptions DEFAULT =
      new CallOptions(null, false, RequestLabels.empty(), new Object[0]);

  private final Duration timeout;
  private final boolean idempotent;
  private final RequestLabels labels;
  // key, value, key, value...
  private final Object[] attributes;

  private CallOptions(Duration timeout, boolean idempotent, RequestLabels labels,
      Object[] attributes) {
    this.timeout = timeout;
    this.idempotent = idempotent;
    this.labels = labels;
    this.attributes = attributes;
  }

  /**
   * The name and type of a per-call value (after gRPC's {@code CallOptions.Key}); keys compare
   * by identity, so keep each in a constant.
   *
   * @param <T> the value's type
   */
  public static final class Key<T> {
    private final String name;

    private Key(String name) {
      this.name = name;
    }

    /** Returns a new key; the name is for messages only. */
    public static <T> Key<T> of(String name) {
      return new Key<>(Objects.requireNonNull(name, "name"));
    }

    @Override
    public String toString() {
      return name;
    }
  }

  /** Returns options for an idempotent request (any failure may be retried). */
  public static CallOptions idempotent() {
    return DEFAULT.withIdempotent(true);
  }

  /**
   * Returns a copy with a timeout for this call, all attempts included; longer than 100 years
   * counts as 100 years.
   *
   * @throws IllegalArgumentException if the timeout is zero or negative
   */
  public CallOptions withTimeout(Duration timeout) {
    return new CallOptions(Durations.positive("timeout", timeout), idempotent, labels,
        attributes);
  }

  /** Returns a copy marked idempotent or not. */
  public CallOptions withIdempotent(boolean idempotent) {
    return new CallOptions(timeout, idempotent, labels, attributes);
  }

  /**
   * Returns a copy with routing labels, matched against endpoint labels by subset selection.
   *
   * @throws IllegalArgumentException if a key or value is empty
   */
  public CallOptions withLabels(Map<String, String> labels) {
    return new CallOptions(timeout, idempotent, RequestLabels.of(labels), attributes);
  }

  /** Returns a copy with routing labels already built (reuse one instance per kind of call). */
  public CallOptions withLabels(RequestLabels labels) {
    return new CallOptions(timeout, idempotent, Objects.requireNonNull(labels, "labels"),
        attributes);
  }

  /** Returns a copy where {@code key} maps to {@code value} (which replaces an earlier one). */
  public <T> CallOptions withAttribute(Key<T> key, T value) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(value, "value");
    int i = indexOf(attributes, key);
    Object[] a;
    if (i >= 0) {
      a = attributes.clone();
    } else {
      a = Arrays.copyOf(attributes, attributes.length + 2);
      i = attributes.length;
      a[i] = key;
    }
    a[i + 1] = value;
    return new CallOptions(timeout, idempotent, labels, a);
  }

  /**
   * Returns a copy with the call's key: a balancer that picks by key ({@code ring_hash}, {@code
   * ketama}, {@code maglev}) sends every call of the same key to the same endpoint while it is
   * open; other balancers ignore it. Hashing an ASCII key allocates nothing.
   */
  public CallOptions withKey(String key) {
    return withAttribute(KEY, Objects.requireNonNull(key, "key"));
  }

  /** Returns the call's key, or {@code null} (the default) for none. */
  public String key() {
    return attribute(KEY);
  }

  /** Returns the value of {@code key}, or {@code null} when it has none. */
  @SuppressWarnings("unchecked")
  public <T> T attribute(Key<T> key) {
    int i = indexOf(attributes, key);
    return i < 0 ? null : (T) attributes[i + 1];
  }

  // The index of key in key, value pairs, or -1.
  static int indexOf(Object[] pairs, Key<?> key) {
    for (int i = 0; i < pairs.length; i += 2) {
      if (pairs[i] == key) {
        return i;
      }
    }
    return -1;
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
    StringBuilder sb = new StringBuilder("CallOptions{timeout=").append(timeout)
        .append(", idempotent=").append(idempotent).append(", labels=").append(labels);
    for (int i = 0; i < attributes.length; i += 2) {
      sb.append(", ").append(attributes[i]).append('=').append(attributes[i + 1]);
    }
    return sb.append('}').toString();
  }
}
