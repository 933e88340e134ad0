package dev.ballast.core;

import dev.ballast.core.internal.KeyBytes;
import dev.ballast.core.internal.XxHash64;
import java.util.Objects;
import java.util.concurrent.atomic.LongAdder;

/**
 * What the key-hashing balancers share: the pick by hash over a {@link HashSnapshot}, and a
 * {@link LoadMetric.InFlight} total of pending requests when loads are bounded.
 */
abstract class AbstractHashBalancer<T> extends AbstractBalancer<T> implements HashBalancer<T> {

  final HashConfig hashConfig;

  AbstractHashBalancer(String name, BalancerConfig config, HashConfig hashConfig) {
    super(name, config, Objects.requireNonNull(hashConfig, "hashConfig").loadBound() > 0
        ? new LoadMetric.InFlight() : LoadMetric.NONE);
    this.hashConfig = hashConfig;
  }

  @Override
  public final Node<T> pick(long hash) {
    Node<T> node = pickUncounted(hash);
    node.acquire();
    return node;
  }

  @Override
  public final Node<T> pickUncounted(long hash) {
    Snapshot<T> s = current();
    return s instanceof HashSnapshot
        ? ((HashSnapshot<T>) s).pick(hash, Availability.CLOSED)
        : s.pick(); // the empty set: throws
  }

  @Override
  final Snapshot<T> snapshot(Node<T>[] nodes, int[] weights, int[] levels) {
    throw new AssertionError("hash balancers build from the endpoints");
  }

  /** The total of pending requests that bounded loads read, or null when loads are unbounded. */
  final LongAdder inFlight() {
    return metric instanceof LoadMetric.InFlight ? ((LoadMetric.InFlight) metric).total : null;
  }

  /** xxHash64 (seed 0) of the key's UTF-8 bytes: ring hash's and Maglev's key hash. */
  static long xxHash64(CharSequence key) {
    KeyBytes k = KeyBytes.of(Objects.requireNonNull(key, "key"));
    return XxHash64.hash(k.bytes(), 0, k.length(), 0);
  }

  /** The name of an endpoint for ketama and Maglev: its name label, if configured and set. */
  final String labelName(Endpoint e) {
    String label = hashConfig.nameLabel();
    return label == null ? null : e.label(label);
  }
}
