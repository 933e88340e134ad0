package dev.ballast.core.locality;

import dev.ballast.core.Algorithm;
import dev.ballast.core.Balancer;
import dev.ballast.core.BalancerConfig;
import dev.ballast.core.Endpoint;
import dev.ballast.core.HashBalancer;
import dev.ballast.core.Health;
import dev.ballast.core.NoAvailableEndpointException;
import dev.ballast.core.Node;
import dev.ballast.core.composite.ChildBalancer;
import dev.ballast.core.composite.HealthEpoch;
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
 * <ol>
 *   <li><b>Priorities</b> ({@link Endpoint#priority()}, 0 first): a level keeps all traffic while
 *       its healthy endpoints times the overprovisioning factor (1.4) are at least all of them
 *       (71.4%); below that its share shrinks and the next levels take the rest. Degraded
 *       endpoints ({@link Health#DEGRADED}) take only what the healthy ones of every level cannot.
 *       When the levels together cannot take it all, a level with fewer available endpoints than
 *       the panic threshold (50%) panics: its share goes to all its endpoints by weight, whatever
 *       their health; when every level panics, levels share by endpoint count. Integer percents
 *       with Envoy's floors and remainder rule; see {@link PriorityLoads}.
 *   <li><b>Localities</b> ({@link Endpoint#zone()}; endpoints without a zone form one locality),
 *       without zone-aware routing: within a level, a locality's weight is the sum of its
 *       endpoints' weights times {@code min(1, 1.4 × available / total)}, so that it keeps its
 *       share until fewer than 71.4% of its endpoints are available (Envoy's locality weighted
 *       load balancing).
 *   <li><b>Zone-aware routing</b>, when {@link LocalityConfig#zoneAware()}: priority 0's healthy
 *       endpoints are chosen by the zone-aware route ({@link ZoneRoute}) when it applies: all
 *       traffic local if the local zone can take it, else the part it can take, the rest spilled
 *       by the other zones' residual capacity. Every other pick (other priorities, degraded
 *       endpoints, a route that does not apply) goes to the level's endpoints of that health by
 *       weight, ignoring zones, as Envoy's zone-aware balancer does.
 *   <li>Inside a locality, a child balancer of the configured algorithm over its endpoints of the
 *       chosen health picks as it would alone (open nodes first, bounded effort).
 * </ol>
 *
 * <p>Nodes keep their state across updates. The tables are made again on each update and after
 * a node's health changes ({@link Node#setHealth}): the node counts the change in a {@link
 * HealthEpoch}, and the next pick that sees the count moved (one volatile read) makes the tables
 * again and swaps them in with a CAS; a burst of verdicts costs one O(N) rebuild. Picks are
 * lock-free and allocation-free. Availability from the layer below is left to the children.
 *
 * <p>It nests: as a {@link ChildBalancer} it is a label subset's child (subsets over zones, the
 * subsets' balancers sharing one {@link Builder#healthEpoch}), and as a {@link HashBalancer} it
 * passes a call's key to children that pick by key, so that a key keeps one node in its zone.
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
  // counts the health changes of the nodes this balancer and its siblings made; a plan made
  // before the count moved is stale
  private final HealthEpoch epoch;
  private final Runnable onHealthChange;
  // whether the children pick by key, so that a call's key reaches them
  private final boolean byKey;
  private volatile LocalityConfig config;
  private Map<String, Node<T>> byAddress = new HashMap<>();
  private volatile LocalityPlan<T> plan;

  @SuppressWarnings("unchecked")
  private LocalityBalancer(Builder<T> b) {
    Supplier<? extends Balancer<T>> made = b.factory != null ? b.factory
        : () -> b.algorithm.create(b.balancerConfig);
    this.factory = () -> ChildBalancer.of(made.get());
    this.prototype = factory.get();
    this.random = b.balancerConfig.random();
    this.config = b.locality;
    this.name = "locality(" + prototype.name() + ")";
    this.epoch = b.epoch;
    this.onHealthChange = epoch::bump;
    this.byKey = prototype instanceof HashBalancer;
    this.plan = new LocalityPlan<>(new Node[0], config, factory, epoch.value());
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
    LocalityPlan<T> p = current();
    int[] cumulative = p.cumulative;
    if (cumulative.length == 0) {
      throw new NoAvailableEndpointException(name, p.nodes.length);
    }
    int x = random.nextInt(cumulative[cumulative.length - 1]);
    int slot = 0;
    while (x >= cumulative[slot]) {
      slot++;
    }
    int count = p.levels.length;
    LocalityPlan.Level<T> level = p.levels[slot < count ? slot : slot - count];
    if (level.panic) {
      Node<T> n = level.panicPick(random);
      if (counted) {
        n.start();
      }
      return n;
    }
    Balancer<T> child = (slot < count ? level.healthy : level.degraded).choose(random);
    if (child == null) { // nothing available and panic off: Envoy's 100% to a level with none
      throw new NoAvailableEndpointException(name, p.nodes.length);
    }
    if (keyed) {
      HashBalancer<T> h = (HashBalancer<T>) child;
      return counted ? h.pick(hash) : h.pickUncounted(hash);
    }
    return counted ? child.pick() : child.pickUncounted();
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

  /** Balances exactly these nodes, made by a {@link #newNode} over the same child algorithm. */
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
    byAddress = next;
    // the count is read before health is: a verdict given meanwhile moves it again
    plan = new LocalityPlan<>(nodes.toArray(new Node[0]), config, factory, epoch.value());
  }

  @Override
  public void setMembers(Node<T>[] nodes, int[] weights) {
    setNodes(java.util.Arrays.asList(nodes));
  }

  @Override
  public void renew(Node<T> node, Endpoint endpoint) {
    prototype.renew(node, endpoint);
  }

  /** Sets the callers' shares by zone ({@link LocalityConfig.Builder#callerZones}), at once. */
  public synchronized void callerZones(Map<String, ? extends Number> shares) {
    config = config.toBuilder().callerZones(shares).build();
    plan = new LocalityPlan<>(plan.nodes, config, factory, epoch.value());
  }

  /** Returns the settings in force. */
  public LocalityConfig config() {
    return config;
  }

  /** Returns the plan, first remaking it if a node's health changed since it was made. */
  private LocalityPlan<T> current() {
    LocalityPlan<T> p = plan;
    int now = epoch.value();
    if (p.epoch == now) {
      return p;
    }
    LocalityPlan<T> next = new LocalityPlan<>(p.nodes, config, factory, now);
    // Another pick or an update may have swapped first: theirs stands, and a plan older than the
    // count is remade by a later pick.
    return PLAN.compareAndSet(this, p, next) ? next : plan;
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
   * panic=false}), for logs and diagnostics.
   */
  public List<String> describe() {
    LocalityPlan<T> p = current();
    List<String> out = new ArrayList<>();
    for (int i = 0; i < p.levels.length; i++) {
      out.add("priority=" + p.priorities[i] + " healthy=" + p.loads.healthy[i] + "% degraded="
          + p.loads.degraded[i] + "% panic=" + p.loads.panic[i]);
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
    private HealthEpoch epoch = HealthEpoch.create();

    private Builder() {}

    /**
     * Shares a count of health changes with the balancers over the same nodes (one label-subset
     * selector's children), so that a verdict reaches all; default: one per builder.
     */
    public Builder<T> healthEpoch(HealthEpoch epoch) {
      this.epoch = Objects.requireNonNull(epoch, "epoch");
      return this;
    }

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
