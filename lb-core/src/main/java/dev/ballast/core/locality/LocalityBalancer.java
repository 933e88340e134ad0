package dev.ballast.core.locality;

import dev.ballast.core.Algorithm;
import dev.ballast.core.Balancer;
import dev.ballast.core.BalancerConfig;
import dev.ballast.core.Endpoint;
import dev.ballast.core.HashBalancer;
import dev.ballast.core.Health;
import dev.ballast.core.Node;
import dev.ballast.core.ChildBalancer;
import dev.ballast.core.log.StateChangeLog;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.random.RandomGenerator;

/**
 * Balances over priority levels and localities as Envoy's code does (not always as its pages
 * say; docs/zones.md lists where they part), with the configured algorithm inside each locality:
 * a pick chooses a priority level by the levels' loads, then a locality of it, then asks that
 * locality's child balancer.
 *
 * The rules, from Envoy's code, are the package's ({@code package-info}): priorities by their
 * healthy share times the overprovisioning factor, degraded endpoints, panic; localities by
 * effective weight; zone-aware routing of priority 0's healthy endpoints; a child balancer of
 * the configured algorithm inside each locality.
 *
 * <p>Nodes keep their state across updates. The tables are made again on each update and after
 * a node's health, zone or priority changes ({@link Node#setHealth}, {@link #renew}): the change
 * is counted, and the next pick that sees the count moved makes the tables again (one pick at a
 * time; the others take the tables as they are) and swaps them in with a CAS; a burst of
 * verdicts costs one O(N) rebuild. Other picks are lock-free and allocation-free. Availability
 * from the layer below is left to the children.
 *
 * <p>It nests: as a {@link ChildBalancer} it is a label subset's child (subsets over zones,
 * hearing the changes of the nodes the selector made, {@link #hearHealthOf}); as a {@link
 * HashBalancer} it passes a call's key to children that pick by key, and draws the level and
 * locality from the key too, so that a key keeps one node while the tables stay (children that
 * pick without a key ignore it, and so does this balancer: {@link #hash} is then 0).
 *
 * @param <T> the thing being balanced
 * @see <a href="https://www.envoyproxy.io/docs/envoy/latest/intro/arch_overview/upstream/load_balancing/locality_weight">Envoy:
 *     locality weighted load balancing</a>
 */
public final class LocalityBalancer<T> implements ChildBalancer<T>, HashBalancer<T> {

  private static final VarHandle PLAN;

  static {
    try {
      PLAN = MethodHandles.lookup().findVarHandle(LocalityBalancer.class, "plan",
          LocalityPlan.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  private final Supplier<? extends ChildBalancer<T>> factory;
  private final ChildBalancer<T> prototype;
  private final RandomGenerator random;
  private final String name;
  // counts the health and label changes of the nodes this balancer (or the sibling it hears,
  // see hearHealthOf) made; a plan made before the count moved is stale
  private volatile AtomicInteger changes = new AtomicInteger();
  private final Runnable onHealthChange = () -> changes.incrementAndGet();
  private final AtomicBoolean rebuilding = new AtomicBoolean();
  // whether the children pick by key, so that a call's key reaches them
  private final boolean byKey;
  private volatile LocalityConfig config;
  private Map<String, Node<T>> byAddress = new HashMap<>();
  private volatile LocalityPlan<T> plan;
  // where a level's panic and the zone's spill are logged, or null
  private volatile StateChangeLog states;

  @SuppressWarnings("unchecked")
  private LocalityBalancer(Builder<T> b) {
    Supplier<? extends Balancer<T>> made = b.factory != null ? b.factory
        : () -> b.algorithm.create(b.balancerConfig);
    this.factory = () -> ChildBalancer.of(made.get());
    this.prototype = factory.get();
    this.random = b.balancerConfig.random();
    this.config = b.locality;
    this.name = "locality(" + prototype.name() + ")";
    this.byKey = prototype instanceof HashBalancer;
    this.plan = new LocalityPlan<>(new Node[0], config, factory, 0);
  }

  /**
   * Returns a builder: weighted round robin ({@link Algorithm#VNSWRR}) in each locality, {@link
   * LocalityConfig#defaults()}.
   */
  public static <T> Builder<T> builder() {
    return new Builder<>();
  }

  @Override
  public Node<T> pick() {
    return pick(true, false, 0);
  }

  @Override
  public Node<T> pickUncounted() {
    return pick(false, false, 0);
  }

  /** Picks as {@link #pick()}, then by the hash in the locality if its children pick by key. */
  @Override
  public Node<T> pick(long hash) {
    return pick(true, byKey, hash);
  }

  @Override
  public Node<T> pickUncounted(long hash) {
    return pick(false, byKey, hash);
  }

  /** Returns the children's hash of a key, or 0 (unused) when they do not pick by key. */
  @Override
  public long hash(CharSequence key) {
    return byKey ? ((HashBalancer<T>) prototype).hash(key) : 0;
  }

  private Node<T> pick(boolean counted, boolean keyed, long hash) {
    // a key's own draws, so that it keeps its level and locality, and so its node
    return current().pick(name, keyed ? KeyedDraws.of(hash) : random, counted, keyed, hash);
  }

  /**
   * Replaces the endpoint set atomically. Nodes whose address stays keep their state and value
   * and take the new weight, labels (zone, priority, health); new addresses get a node whose
   * value is made by {@code values}, called only after the whole set is validated.
   *
   * @return the nodes removed by this update
   * @throws IllegalArgumentException as the child algorithm's {@code update} would; the previous
   *     set then stays in force, untouched
   */
  @Override
  public synchronized List<Node<T>> update(Collection<Endpoint> endpoints,
      Function<? super Endpoint, ? extends T> values) {
    Objects.requireNonNull(endpoints, "endpoints");
    Objects.requireNonNull(values, "values");
    List<Endpoint> es = List.copyOf(endpoints);
    // Every locality's part is a part of the whole set, with a weight sum no larger and a weight
    // gcd no smaller: a set the algorithm accepts gives parts it accepts.
    prototype.validate(es);
    Map<String, Node<T>> left = new HashMap<>(byAddress);
    @SuppressWarnings("unchecked")
    Node<T>[] nodes = new Node[es.size()];
    boolean[] kept = new boolean[nodes.length];
    for (int i = 0; i < nodes.length; i++) {
      Endpoint e = es.get(i);
      Node<T> n = left.remove(e.address());
      kept[i] = n != null;
      nodes[i] = n != null ? n : prototype.newNode(e, values.apply(e), onHealthChange);
    }
    for (int i = 0; i < nodes.length; i++) {
      if (kept[i]) {
        prototype.renew(nodes[i], es.get(i));
      }
    }
    setNodes(java.util.Arrays.asList(nodes));
    return List.copyOf(left.values());
  }

  // --- as a child of a composite (label subsets over zones) ---

  @Override
  public Node<T> newNode(Endpoint endpoint, T value) {
    return prototype.newNode(endpoint, value, onHealthChange);
  }

  @Override
  public Node<T> newNode(Endpoint endpoint, T value, Runnable onHealthChange) {
    Objects.requireNonNull(onHealthChange, "onHealthChange");
    return prototype.newNode(endpoint, value, () -> {
      this.onHealthChange.run();
      onHealthChange.run();
    });
  }

  @Override
  public void validate(Collection<Endpoint> endpoints) {
    prototype.validate(endpoints);
  }

  @Override
  public boolean limitsWeights() {
    return prototype.limitsWeights();
  }

  @Override
  public void validateMembers(Endpoint[] endpoints, int[] weights) {
    prototype.validateMembers(endpoints, weights);
  }

  /**
   * Balances exactly these nodes, made by a {@link #newNode} over the same child algorithm; a
   * refused set (an address twice, a node the children refuse) changes nothing.
   */
  @Override
  @SuppressWarnings("unchecked")
  public synchronized void setNodes(List<Node<T>> nodes) {
    Map<String, Node<T>> next = new HashMap<>();
    for (Node<T> n : nodes) {
      if (next.put(n.address(), n) != null) {
        throw new IllegalArgumentException("nodes: " + n.address() + " given twice (expected:"
            + " each address once)");
      }
    }
    // the count is read before health is: a verdict given meanwhile moves it again
    LocalityPlan<T> made = new LocalityPlan<>(nodes.toArray(new Node[0]), config, factory,
        changes.get());
    byAddress = next;
    LocalityPlan<T> before = plan;
    plan = made;
    LocalityChanges.log(states, before, made);
  }

  /** Hears the changes of the nodes a sibling makes (a label subset's children share nodes). */
  @Override
  public synchronized void hearHealthOf(ChildBalancer<T> maker) {
    if (maker instanceof LocalityBalancer<T> l && l != this) {
      changes = l.changes;
      plan = new LocalityPlan<>(plan.nodes, config, factory, changes.get());
    }
  }

  @Override
  public void setMembers(Node<T>[] nodes, int[] weights) {
    setNodes(java.util.Arrays.asList(nodes));
  }

  /** Renews a node; a new zone, priority or health remakes the tables at the next pick. */
  @Override
  public void renew(Node<T> node, Endpoint endpoint) {
    Endpoint before = node.endpoint();
    prototype.renew(node, endpoint);
    if (before.priority() != endpoint.priority() || before.health() != endpoint.health()
        || !Objects.equals(before.zone(), endpoint.zone())) {
      changes.incrementAndGet();
    }
  }

  /** Sets the callers' shares by zone ({@link LocalityConfig.Builder#callerZones}), at once. */
  public synchronized void callerZones(Map<String, ? extends Number> shares) {
    config = config.toBuilder().callerZones(shares).build();
    LocalityPlan<T> before = plan;
    plan = new LocalityPlan<>(plan.nodes, config, factory, changes.get());
    LocalityChanges.log(states, before, plan);
  }

  /**
   * Logs from now on, rate-limited, when a priority level enters or leaves panic and when the
   * caller's zone starts or stops spilling calls to other zones (on the thread that makes the
   * tables again: an update's, or the first pick after a change); off by default.
   */
  public void stateLog(StateChangeLog log) {
    this.states = log;
  }

  /** Returns the settings in force. */
  public LocalityConfig config() {
    return config;
  }

  /**
   * Returns the plan, first remaking it if a node changed since it was made: one pick remakes
   * it, the others meanwhile take the plan as it is.
   */
  private LocalityPlan<T> current() {
    LocalityPlan<T> p = plan;
    int now = changes.get();
    if (p.epoch == now || !rebuilding.compareAndSet(false, true)) {
      return p;
    }
    try {
      LocalityPlan<T> next = new LocalityPlan<>(p.nodes, config, factory, now);
      // An update may have swapped first: its plan stands, and is remade later if stale.
      if (PLAN.compareAndSet(this, p, next)) {
        LocalityChanges.log(states, p, next);
        return next;
      }
      return plan;
    } finally {
      rebuilding.set(false);
    }
  }

  @Override
  public List<Node<T>> nodes() {
    return List.of(plan.nodes);
  }

  /** Returns {@code locality(<child algorithm>)}, e.g. {@code locality(vnswrr)}. */
  @Override
  public String name() {
    return name;
  }

  /**
   * Returns the current split, level by level ({@code priority=0 healthy=70% degraded=0%
   * panic=false}), then, with a local zone, its zone-aware routing ({@code zone=a local=60.0%},
   * {@code local=100.0%} when every call stays, or {@code zone=a off (<why>)}, also while
   * priority 0 panics), for logs and diagnostics.
   */
  public List<String> describe() {
    LocalityPlan<T> p = current();
    List<String> out = new ArrayList<>();
    for (int i = 0; i < p.levels.length; i++) {
      out.add("priority=" + p.priorities[i] + " healthy=" + p.loads.healthy[i] + "% degraded="
          + p.loads.degraded[i] + "% panic=" + p.loads.panic[i]);
    }
    if (p.localZone != null) {
      ZoneRoute r = p.levels.length == 0 || p.loads.panic[0] ? null : p.levels[0].healthy.route;
      out.add("zone=" + p.localZone + (r != null ? " local=" + r.localShare / 100.0 + "%"
          : " off (" + (p.zoneOff != null ? p.zoneOff : "priority 0 in panic") + ")"));
    }
    return out;
  }

  /** The current tables, for tests in this package. */
  LocalityPlan<T> plan() {
    return current();
  }

  /** The tables as they are, stale or not, for tests in this package. */
  LocalityPlan<T> planAsIs() {
    return plan;
  }

  @Override
  public String toString() {
    return name + describe();
  }

  /**
   * Builds a {@link LocalityBalancer}. Defaults: child balancers {@link Algorithm#VNSWRR}
   * (weighted round robin by endpoint weight, as Envoy's default policy) with {@link
   * BalancerConfig#defaults()} (whose random source also drives the choice of level and
   * locality), and {@link LocalityConfig#defaults()}.
   *
   * @param <T> the thing being balanced
   */
  public static final class Builder<T> {
    private Algorithm algorithm = Algorithm.VNSWRR;
    private BalancerConfig balancerConfig = BalancerConfig.defaults();
    private Supplier<? extends Balancer<T>> factory;
    private LocalityConfig locality = LocalityConfig.defaults();

    private Builder() {}

    /** Sets the child balancers' algorithm; default {@link Algorithm#VNSWRR}. */
    public Builder<T> algorithm(Algorithm algorithm) {
      this.algorithm = Objects.requireNonNull(algorithm, "algorithm");
      this.factory = null;
      return this;
    }

    /**
     * Sets the child balancers' settings, whose random source also chooses levels and
     * localities; default {@link BalancerConfig#defaults()}.
     */
    public Builder<T> config(BalancerConfig config) {
      this.balancerConfig = Objects.requireNonNull(config, "config");
      return this;
    }

    /**
     * Sets a factory of child balancers instead of {@link #algorithm}: each must be a {@link
     * ChildBalancer} of one algorithm that makes nodes reporting health changes (every lb-core
     * algorithm's balancer does).
     */
    public Builder<T> balancerFactory(Supplier<? extends Balancer<T>> factory) {
      this.factory = Objects.requireNonNull(factory, "balancerFactory");
      return this;
    }

    /** Sets the priority, locality and zone settings; default {@link LocalityConfig#defaults()}. */
    public Builder<T> locality(LocalityConfig config) {
      this.locality = Objects.requireNonNull(config, "locality");
      return this;
    }

    /** Returns the balancer, empty; refuses a factory that makes no ChildBalancer. */
    public LocalityBalancer<T> build() {
      return new LocalityBalancer<>(this);
    }
  }
}
