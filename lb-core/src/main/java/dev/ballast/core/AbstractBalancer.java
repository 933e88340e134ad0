package dev.ballast.core;

import dev.ballast.core.internal.BalancerAccess;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;

/**
 * The updating half shared by every algorithm (Finagle's "updating" balancer): a registry of
 * nodes by address, serialised updates, and a volatile snapshot that picks read lock-free.
 */
abstract class AbstractBalancer<T> implements Balancer<T> {

  static {
    BalancerAccess.lend(new Lender());
  }

  final BalancerConfig config;
  private final String name;
  final LoadMetric metric;
  private volatile Snapshot<T> snapshot;

  AbstractBalancer(String name, BalancerConfig config, LoadMetric metric) {
    this.name = name;
    this.config = Objects.requireNonNull(config, "config");
    this.metric = metric;
    this.snapshot = new EmptySnapshot<>(name);
  }

  /**
   * Builds the algorithm's snapshot over non-empty nodes with their weights at update time;
   * the weights have passed {@link #checkWeights}, so this does not throw.
   */
  abstract Snapshot<T> snapshot(Node<T>[] nodes, int[] weights);

  /**
   * Rejects weights the algorithm cannot hold (beyond the checks every algorithm makes); called
   * before any node or value is made. Default: accepts all.
   */
  void checkWeights(int[] weights) {}

  /**
   * Builds the snapshot, for algorithms that also read the endpoints' names or labels: while it
   * runs, a kept node still holds its previous endpoint, and {@code endpoints[i]} is node i's new
   * one ({@code endpoints} is null for validated nodes given to a balancer that is no hash
   * balancer).
   */
  Snapshot<T> snapshot(Node<T>[] nodes, int[] weights, Endpoint[] endpoints) {
    return snapshot(nodes, weights);
  }

  /** Returns the snapshot picks read now. */
  final Snapshot<T> current() {
    return snapshot;
  }

  @Override
  public final Node<T> pick() {
    Node<T> node = snapshot.pick();
    node.acquire();
    return node;
  }

  @Override
  public final String name() {
    return name;
  }

  @Override
  public final List<Node<T>> nodes() {
    return List.of(snapshot.nodes);
  }

  @Override
  public final Node<T> newNode(Endpoint endpoint, T value) {
    return new Node<>(endpoint, value, metric);
  }

  @Override
  public final synchronized List<Node<T>> update(
      Collection<Endpoint> endpoints, Function<? super Endpoint, ? extends T> values) {
    Objects.requireNonNull(endpoints, "endpoints");
    Objects.requireNonNull(values, "values");
    Endpoint[] es = endpoints.toArray(new Endpoint[0]);
    int[] weights = checkedWeights(es);
    checkWeights(weights);
    Map<String, Node<T>> current = new HashMap<>();
    for (Node<T> n : snapshot.nodes) {
      current.put(n.address(), n);
    }
    @SuppressWarnings("unchecked")
    Node<T>[] nodes = new Node[es.length];
    for (int i = 0; i < es.length; i++) {
      Node<T> kept = current.remove(es[i].address());
      nodes[i] = kept != null ? kept : newNode(es[i], values.apply(es[i]));
    }
    Snapshot<T> next =
        es.length == 0 ? new EmptySnapshot<>(name) : snapshot(nodes, weights, es);
    for (int i = 0; i < es.length; i++) {
      nodes[i].updateEndpoint(es[i]);
    }
    snapshot = next;
    return List.copyOf(current.values());
  }

  @Override
  public final void validate(Collection<Endpoint> endpoints) {
    Objects.requireNonNull(endpoints, "endpoints");
    checkWeights(checkedWeights(endpoints.toArray(new Endpoint[0])));
  }

  @Override
  public final synchronized void setNodes(List<Node<T>> nodeList) {
    @SuppressWarnings("unchecked")
    Node<T>[] nodes = nodeList.toArray(new Node[0]);
    Endpoint[] es = new Endpoint[nodes.length];
    for (int i = 0; i < nodes.length; i++) {
      checkAlgorithm(nodes[i]);
      es[i] = nodes[i].endpoint();
    }
    int[] weights = checkedWeights(es);
    checkWeights(weights);
    snapshot = nodes.length == 0 ? new EmptySnapshot<>(name) : snapshot(nodes, weights, es);
  }

  @Override
  public final void renew(Node<T> node, Endpoint endpoint) {
    checkAlgorithm(node);
    Balancer.super.renew(node, endpoint);
  }

  private void checkAlgorithm(Node<T> node) {
    if (node.metric.getClass() != metric.getClass()) {
      throw new IllegalArgumentException("node " + node.address()
          + " was made for another algorithm (expected: a node made by a " + name + " balancer)");
    }
  }

  /**
   * Returns the weights, checking that no address is given twice through an open-addressing
   * table of the addresses (linear probing, at most half full), which allocates one array
   * rather than an entry per endpoint.
   */
  private static int[] checkedWeights(Endpoint[] es) {
    int[] weights = new int[es.length];
    String[] seen = new String[Integer.highestOneBit(Math.max(1, es.length)) * 4];
    int mask = seen.length - 1;
    long sum = 0;
    for (int i = 0; i < es.length; i++) {
      Endpoint e = Objects.requireNonNull(es[i], "endpoint");
      String address = e.address();
      int h = address.hashCode() * 0x9E3779B9;
      for (int at = (h ^ (h >>> 16)) & mask; ; at = (at + 1) & mask) {
        if (seen[at] == null) {
          seen[at] = address;
          break;
        }
        if (seen[at].equals(address)) {
          throw new IllegalArgumentException("address: " + address + " given twice");
        }
      }
      weights[i] = e.weight();
      sum += e.weight();
    }
    if (sum > Integer.MAX_VALUE) {
      throw new IllegalArgumentException(
          "weights: sum " + sum + " (expected: <= " + Integer.MAX_VALUE + ")");
    }
    return weights;
  }

  @Override
  public String toString() {
    return name + List.of(snapshot.nodes);
  }

  /**
   * The trusted calls of {@link BalancerAccess}: a composite of lb-core that made the nodes with
   * one balancer of an algorithm and checked their set gives parts of it to others of the same
   * algorithm, with no address hashed again. Only the first node's algorithm is checked: one
   * balancer made them all.
   */
  private static final class Lender implements BalancerAccess.Lender {
    // whether a class overrides checkWeights, i.e. its algorithm limits weights beyond their sum
    private static final ClassValue<Boolean> LIMITS = new ClassValue<>() {
      @Override
      protected Boolean computeValue(Class<?> type) {
        for (Class<?> c = type; c != AbstractBalancer.class; c = c.getSuperclass()) {
          try {
            c.getDeclaredMethod("checkWeights", int[].class);
            return true;
          } catch (NoSuchMethodException e) {
            // not here: look in the superclass
          }
        }
        return false;
      }
    };

    @Override
    public boolean owns(Balancer<?> balancer) {
      return balancer instanceof AbstractBalancer;
    }

    @Override
    public boolean limitsWeights(Balancer<?> balancer) {
      return LIMITS.get(balancer.getClass());
    }

    @Override
    public void checkWeights(Balancer<?> balancer, int[] weights) {
      ((AbstractBalancer<?>) balancer).checkWeights(weights);
    }

    @Override
    public <T> void setValidatedNodes(Balancer<T> balancer, Node<T>[] nodes, int[] weights) {
      AbstractBalancer<T> b = (AbstractBalancer<T>) balancer;
      synchronized (b) {
        if (nodes.length > 0) {
          b.checkAlgorithm(nodes[0]);
        }
        // the hash balancers build from the members' endpoints (names, labels): only they get them
        Endpoint[] es = b instanceof AbstractHashBalancer ? new Endpoint[nodes.length] : null;
        for (int i = 0; es != null && i < nodes.length; i++) {
          es[i] = nodes[i].endpoint();
        }
        b.snapshot =
            nodes.length == 0 ? new EmptySnapshot<>(b.name) : b.snapshot(nodes, weights, es);
      }
    }
  }

  /** The empty set: every pick fails. */
  private static final class EmptySnapshot<T> extends Snapshot<T> {
    @SuppressWarnings("unchecked")
    EmptySnapshot(String name) {
      super(name, new Node[0], BalancerConfig.defaults());
    }

    @Override
    Node<T> pick() {
      throw new NoAvailableEndpointException(name, 0);
    }

    @Override
    Node<T> next() {
      throw new NoAvailableEndpointException(name, 0);
    }
  }
}
