package dev.ballast.core.engine;

import dev.ballast.core.Availability;
import dev.ballast.core.BalancerConfig;
import dev.ballast.core.HashBalancer;
import dev.ballast.core.NoAvailableEndpointException;
import dev.ballast.core.Node;
import dev.ballast.core.internal.XxHash64;
import java.util.Arrays;
import java.util.Collections;
import java.util.Objects;

/**
 * The balancer of a policy that picks by key written as a {@link KeyedDistributor}: {@link
 * DistributorBalancer}'s engine (nodes kept across updates, immutable snapshots, the bounded
 * search, panic or {@code NoAvailableEndpointException}) as a {@link HashBalancer}, so that
 * the front ends pass it each call's key (lb-netty, gRPC's key policies and {@code locality};
 * gRPC's {@code label_subset} and Spring Cloud refuse a child that picks by key). Like lb-core's
 * key-picking balancers it does not ramp new nodes (a key keeps its node whatever the weights).
 * Keys hash with xxHash64 of their UTF-8 bytes, seed 0, as {@code ring_hash} and {@code maglev}
 * do.
 *
 * @param <T> the thing being balanced
 */
public final class KeyedDistributorBalancer<T> extends AbstractBalancer<T>
    implements HashBalancer<T> {

  private final KeyedDistributor.Factory factory;

  /**
   * Creates an empty balancer.
   *
   * @param name the policy's name, for messages and {@link #name()}
   * @param config the settings every balancer reads
   * @param factory makes a keyed distributor over each new set of nodes
   */
  public KeyedDistributorBalancer(String name, BalancerConfig config,
      KeyedDistributor.Factory factory) {
    super(Objects.requireNonNull(name, "name"), config, LoadMetric.NONE);
    this.factory = Objects.requireNonNull(factory, "factory");
  }

  @Override
  protected Snapshot<T> snapshot(Node<T>[] nodes, int[] weights, int[] levels) {
    KeyedDistributor<T> d = factory.over(Collections.unmodifiableList(Arrays.asList(nodes)),
        weights.clone(), config);
    return new KeyedSnapshot<>(name(), nodes, config, Objects.requireNonNull(d, () -> "policy "
        + name() + ": its KeyedDistributor.Factory returned null (expected: a distributor)"));
  }

  @Override
  public Node<T> pick(long hash) {
    Node<T> node = pickUncounted(hash);
    node.start();
    return node;
  }

  @Override
  public Node<T> pickUncounted(long hash) {
    Snapshot<T> s = current();
    return s instanceof KeyedSnapshot<T> k ? k.pick(hash) : s.pick(); // the empty set throws
  }

  /** Returns xxHash64 (seed 0) of the key's UTF-8 bytes. */
  @Override
  public long hash(CharSequence key) {
    return XxHash64.ofKey(key);
  }

  private static final class KeyedSnapshot<T> extends Snapshot<T> {
    private final KeyedDistributor<T> distributor;
    private final int maxEffort;
    private final boolean panicPick;

    KeyedSnapshot(String name, Node<T>[] nodes, BalancerConfig config,
        KeyedDistributor<T> distributor) {
      super(name, nodes, config);
      this.distributor = distributor;
      this.maxEffort = config.maxEffort();
      this.panicPick = config.panicPick();
    }

    /** A keyless pick's candidate: a random hash's first. */
    @Override
    public Node<T> next() {
      return distributor.next(random.nextLong(), 0);
    }

    Node<T> pick(long hash) {
      for (int attempt = 0; attempt < maxEffort; attempt++) {
        Node<T> candidate = distributor.next(hash, attempt);
        // a key keeps a busy node (as lb-core's key balancers): only a closed one moves it
        if (candidate.availability() != Availability.CLOSED) {
          return candidate;
        }
      }
      // every node once from where the hash points, as HashSnapshot's scan: still one node a key
      int n = nodes.length;
      int start = (int) (((hash >>> 32) * n) >>> 32);
      for (int i = 0; i < n; i++) {
        Node<T> node = nodes[start + i < n ? start + i : start + i - n];
        if (node.availability() != Availability.CLOSED) {
          return node;
        }
      }
      if (panicPick) {
        return nodes[start];
      }
      throw new NoAvailableEndpointException(name, n);
    }
  }
}
