package dev.ballast.core.engine;

import dev.ballast.core.BalancerConfig;
import dev.ballast.core.ChildBalancer;
import dev.ballast.core.Endpoint;
import dev.ballast.core.HashBalancer;
import dev.ballast.core.Node;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;

/**
 * The updating half shared by every algorithm (Finagle's "updating" balancer): a registry of
 * nodes by address, serialised updates, and a volatile snapshot that picks read lock-free.
 *
 * <p>Slow start ({@link SlowStart}) lives here too: a node that joins after the first non-empty
 * update is stamped with its join time, and a snapshot holding ramping nodes is built over their
 * stepped weights. While one is current, a pick in 32 reads the clock, and the pick that finds
 * the next step due (one at a time) builds the next snapshot and swaps it in with a CAS, which
 * fails harmlessly if an update swapped meanwhile.
 *
 * @param <T> the thing being balanced
 */
public abstract class AbstractBalancer<T> implements ChildBalancer<T> {

  private static final VarHandle SNAPSHOT;

  static {
    try {
      SNAPSHOT = MethodHandles.lookup()
          .findVarHandle(AbstractBalancer.class, "snapshot", Snapshot.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  /** The settings the balancer was made with. */
  protected final BalancerConfig config;
  private final String name;
  /** What the balancer's nodes record; it makes them ({@link LoadMetric#newNode}). */
  protected final LoadMetric metric;
  private final SlowStart slowStart;
  private final AtomicBoolean stepping = new AtomicBoolean();
  private volatile Snapshot<T> snapshot;
  // Whether a non-empty update was applied: endpoints joining after it ramp (update lock).
  private boolean seeded;
  // The weights of the last update or setNodes, for rebuild (update lock).
  private int[] weights = new int[0];

  /**
   * Makes a balancer with no nodes yet.
   *
   * @param name the algorithm's name, for errors and status ({@code p2c_peak_ewma})
   * @param config the settings every balancer reads (effort, panic, random source, slow start)
   * @param metric makes the nodes and holds what they share; {@link LoadMetric#NONE} for plain
   *     nodes
   */
  protected AbstractBalancer(String name, BalancerConfig config, LoadMetric metric) {
    this.name = Objects.requireNonNull(name, "name");
    this.config = Objects.requireNonNull(config, "config");
    this.metric = Objects.requireNonNull(metric, "metric");
    // a key keeps its endpoint whatever the weights: balancers that pick by key do not ramp
    this.slowStart = this instanceof HashBalancer ? null : SlowStart.of(config);
    this.snapshot = new EmptySnapshot<>(name);
  }

  /**
   * Builds the algorithm's snapshot over non-empty nodes; does not throw. The arrays are the
   * balancer's own: the snapshot may keep them but must not write them.
   *
   * @param weights the nodes' weights at update time, which have passed {@link #checkWeights};
   *     during a slow-start ramp, each multiplied by its node's level in {@code levels}
   * @param levels null, or the share of its weight each node gets in a ramp, relative to the
   *     nodes not ramping (the largest level; levels are reduced by their gcd), for algorithms
   *     that ignore weights otherwise
   */
  protected abstract Snapshot<T> snapshot(Node<T>[] nodes, int[] weights, int[] levels);

  /**
   * Rejects weights the algorithm cannot hold (beyond the checks every algorithm makes); called
   * before any node or value is made, and on a slow-start ramp's weights. Default: accepts all.
   *
   * @throws IllegalArgumentException naming the bad weight: the only exception it may throw (a
   *     ramp it refuses is then skipped; another would reach a caller's pick)
   */
  protected void checkWeights(int[] weights) {}

  /**
   * Rejects a ramp the algorithm cannot hold: its weights times their levels, and the levels.
   * Default: {@link #checkWeights} of the ramped weights.
   */
  protected void checkRamp(int[] ramped, int[] levels) {
    checkWeights(ramped);
  }

  /**
   * Builds the snapshot without a ramp, for algorithms that also read the endpoints' names or
   * labels: while it runs, a kept node still holds its previous endpoint, and {@code
   * endpoints[i]} is node i's new one ({@code endpoints} is null for validated nodes given to a
   * balancer that is no hash balancer). Default: {@code snapshot(nodes, weights, null)}.
   */
  protected Snapshot<T> snapshotOfEndpoints(Node<T>[] nodes, int[] weights, Endpoint[] endpoints) {
    return snapshot(nodes, weights, null);
  }

  @Override
  public final Node<T> pick() {
    Node<T> node = current().pick();
    node.start();
    return node;
  }

  @Override
  public final Node<T> pickUncounted() {
    return current().pick();
  }

  /** Returns the snapshot to pick from, first stepping a ramp whose next step is due. */
  protected final Snapshot<T> current() {
    Snapshot<T> s = snapshot;
    if (s.nextStep != SlowStart.NEVER && (++s.picks & 31) == 0) {
      return step(s);
    }
    return s;
  }

  private Snapshot<T> step(Snapshot<T> s) {
    if (slowStart.now() < s.nextStep || !stepping.compareAndSet(false, true)) {
      return s;
    }
    try {
      Snapshot<T> next = build(s.nodes, s.rampBase, endpoints(s.nodes));
      return SNAPSHOT.compareAndSet(this, s, next) ? next : snapshot;
    } finally {
      stepping.set(false);
    }
  }

  /** Builds the snapshot over nodes and their weights, with the ramp of any node that ramps. */
  private Snapshot<T> build(Node<T>[] nodes, int[] weights, Endpoint[] endpoints) {
    if (nodes.length == 0) {
      return new EmptySnapshot<>(name);
    }
    if (slowStart == null) {
      return snapshotOfEndpoints(nodes, weights, endpoints);
    }
    SlowStart.Ramp ramp = slowStart.ramp(nodes);
    // A floor finer than the algorithm can hold (a ring or a weight sum too large) is rounded
    // up to a coarser one, down to a tenth; past that, the ramp is skipped.
    for (int unit = 1; ramp != null && unit <= SlowStart.FULL / 10; unit *= 10) {
      int[] coarse = SlowStart.reduced(ramp.levels(), unit);
      int[] ramped = ramped(weights, coarse);
      if (ramped != null) {
        Snapshot<T> s = snapshot(nodes, ramped, coarse);
        s.nextStep = ramp.nextStep();
        s.rampBase = weights;
        return s;
      }
    }
    return snapshotOfEndpoints(nodes, weights, endpoints);
  }

  private static <T> Endpoint[] endpoints(Node<T>[] nodes) {
    Endpoint[] es = new Endpoint[nodes.length];
    for (int i = 0; i < nodes.length; i++) {
      es[i] = nodes[i].endpoint();
    }
    return es;
  }

  /**
   * Returns the weights times their levels, or null if the algorithm cannot hold them (a sum
   * past {@code int}, a VNSWRR ring past its limit).
   */
  private int[] ramped(int[] weights, int[] levels) {
    int[] out = new int[weights.length];
    long sum = 0;
    for (int i = 0; i < weights.length; i++) {
      long w = (long) weights[i] * levels[i];
      sum += w;
      if (sum > Integer.MAX_VALUE) {
        return null;
      }
      out[i] = (int) w;
    }
    try {
      checkRamp(out, levels);
    } catch (IllegalArgumentException tooLarge) {
      return null;
    }
    return out;
  }

  @Override
  public final double ramp(Node<T> node) {
    return slowStart == null ? 1
        : slowStart.level(node instanceof EngineNode<T> e ? e.joined : SlowStart.NOT_RAMPING,
            slowStart.now()) / (double) SlowStart.FULL;
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
    return metric.newNode(endpoint, value, null);
  }

  @Override
  public final Node<T> newNode(Endpoint endpoint, T value, Runnable onHealthChange) {
    Objects.requireNonNull(onHealthChange, "onHealthChange");
    return metric.newNode(endpoint, value, onHealthChange);
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
    long joined = slowStart != null && seeded ? slowStart.now() : SlowStart.NOT_RAMPING;
    for (int i = 0; i < es.length; i++) {
      Node<T> kept = current.remove(es[i].address());
      if (kept == null) {
        kept = newNode(es[i], values.apply(es[i]));
        ((EngineNode<T>) kept).joined = joined;
      }
      nodes[i] = kept;
    }
    Snapshot<T> next = build(nodes, weights, es);
    for (int i = 0; i < es.length; i++) {
      ((EngineNode<T>) nodes[i]).renew(es[i]);
    }
    snapshot = next;
    this.weights = weights;
    seeded |= es.length > 0;
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
    snapshot = build(nodes, weights, es);
    this.weights = weights;
  }

  /** Builds the snapshot again over the same nodes and weights (a setting changed). */
  protected final synchronized void rebuild() {
    Node<T>[] nodes = snapshot.nodes;
    snapshot = build(nodes, weights, endpoints(nodes));
  }

  @Override
  public final void renew(Node<T> node, Endpoint endpoint) {
    checkAlgorithm(node);
    ((EngineNode<T>) node).renew(Objects.requireNonNull(endpoint, "endpoint")); // same address
  }

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
  public final boolean limitsWeights() {
    return LIMITS.get(getClass());
  }

  @Override
  public final void validateMembers(Endpoint[] endpoints, int[] weights) {
    checkWeights(weights);
  }

  /**
   * Takes the nodes and weights as they are (no address hashed): the composite made the nodes
   * with one balancer of this algorithm and checked their set; each node's algorithm is still
   * checked (one class compared a node), since an algorithm's nodes carry its own state.
   */
  @Override
  public final synchronized void setMembers(Node<T>[] nodes, int[] weights) {
    if (nodes.length != weights.length) {
      throw new IllegalArgumentException("weights: " + weights.length + " for "
          + nodes.length + " nodes (expected: one per node)");
    }
    for (Node<T> n : nodes) {
      checkAlgorithm(n);
    }
    // the hash balancers build from the members' endpoints (names, labels): only they get them
    Endpoint[] es = this instanceof HashBalancer ? endpoints(nodes) : null;
    snapshot = build(nodes, weights, es);
    this.weights = weights;
  }

  private void checkAlgorithm(Node<T> node) {
    if (!(node instanceof EngineNode<T> e) || e.madeBy.getClass() != metric.getClass()) {
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
}
