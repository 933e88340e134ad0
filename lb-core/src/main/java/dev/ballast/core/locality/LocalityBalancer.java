package dev.ballast.core.locality;

import dev.ballast.core.Algorithm;
import dev.ballast.core.Balancer;
import dev.ballast.core.BalancerConfig;
import dev.ballast.core.Endpoint;
import dev.ballast.core.Health;
import dev.ballast.core.NoAvailableEndpointException;
import dev.ballast.core.Node;
import dev.ballast.core.composite.ChildBalancer;
import dev.ballast.core.log.StateChangeLog;
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
 * Balances over priority levels and localities as Envoy does, with the configured algorithm
 * inside each locality: a pick chooses a priority level by the levels' loads, then a locality of
 * it, then asks that locality's child balancer.
 *
 * <ol>
 *   <li><b>Priorities</b> ({@link Endpoint#priority()}, 0 first): a level keeps all traffic while
 *       its healthy endpoints times the overprovisioning factor (1.4) are at least all of them
 *       (71.4%); below that its share shrinks and the next levels take the rest. Degraded
 *       endpoints ({@link Health#DEGRADED}) take only what the healthy ones of every level cannot.
 *       When the levels together cannot take it all, a level with fewer available endpoints than
 *       the panic threshold (50%) panics: its share goes to all its endpoints by weight, whatever
 *       their health. See {@link PriorityLoads}.
 *   <li><b>Localities</b> ({@link Endpoint#zone()}; endpoints without a zone form one locality):
 *       within a level, a locality's weight is the sum of its endpoints' weights, scaled by its
 *       availability with the same factor ({@code weight × min(100, 140 × available / total)}),
 *       so that it keeps its share until fewer than 71.4% of its endpoints are available (Envoy's
 *       locality weighted load balancing).
 *   <li><b>Zone-aware routing</b>, when {@link LocalityConfig#zoneAware()}: in the first level,
 *       not in panic and with at least {@link LocalityConfig#minClusterSize()} healthy endpoints,
 *       healthy endpoints are chosen by the zone-aware route instead ({@link ZoneRoute}): all
 *       traffic local if the local zone can take it, else the part it can take, the rest spilled
 *       by the other zones' residual capacity.
 *   <li>Inside a locality, a child balancer of the configured algorithm over its endpoints of the
 *       chosen health picks as it would alone (open nodes first, bounded effort).
 * </ol>
 *
 * <p>Nodes keep their state across updates. The tables are made again on each update, and
 * after an endpoint's health changes ({@link Node#setHealth}): the node tells this balancer,
 * which only marks its tables stale; the next pick sees the mark (one volatile read), makes the
 * tables again and swaps them in with a CAS, as slow start steps its ramp. So a burst of verdicts
 * (a zone's checks failing together) costs one O(N) rebuild, not one per endpoint, and is seen
 * from the next pick on; every other pick reads one volatile plan, lock-free and allocation-free.
 * Health reads as {@link Node#health()}; availability from the layer below (busy, closed) is left
 * to the child balancers.
 *
 * @param <T> the thing being balanced
 * @see <a href="https://www.envoyproxy.io/docs/envoy/latest/intro/arch_overview/upstream/load_balancing/locality_weight">Envoy:
 *     locality weighted load balancing</a>
 */
public final class LocalityBalancer<T> implements Balancer<T> {

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
  private final Runnable onHealthChange = () -> stale = true;
  // set when a node's health changed since the plan was made; cleared by whoever remakes it
  private volatile boolean stale;
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
    this.plan = new LocalityPlan<>(new Node[0], config, factory);
  }

  /** Returns a builder: round robin in each locality, {@link LocalityConfig#defaults()}. */
  public static <T> Builder<T> builder() {
    return new Builder<>();
  }

  @Override
  public Node<T> pick() {
    return pick(true);
  }

  @Override
  public Node<T> pickUncounted() {
    return pick(false);
  }

  private Node<T> pick(boolean counted) {
    LocalityPlan<T> p = current();
    int[] cumulative = p.cumulative;
    if (cumulative.length == 0 || cumulative[cumulative.length - 1] == 0) {
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
    Map<String, Node<T>> next = new HashMap<>();
    for (int i = 0; i < nodes.length; i++) {
      if (kept[i]) {
        prototype.renew(nodes[i], es.get(i));
      }
      next.put(nodes[i].address(), nodes[i]);
    }
    byAddress = next;
    stale = false; // (before reading health: a verdict given meanwhile marks it again)
    LocalityPlan<T> before = plan;
    plan = new LocalityPlan<>(nodes, config, factory);
    LocalityChanges.log(states, before, plan);
    return List.copyOf(left.values());
  }

  /**
   * Sets the callers' shares by zone, e.g. as a registry reports where the callers run, and
   * makes the tables again; see {@link LocalityConfig.Builder#callerZones}.
   */
  public synchronized void callerZones(Map<String, ? extends Number> shares) {
    config = config.toBuilder().callerZones(shares).build();
    stale = false;
    LocalityPlan<T> before = plan;
    plan = new LocalityPlan<>(plan.nodes, config, factory);
    LocalityChanges.log(states, before, plan);
  }

  /**
   * Logs from now on, rate-limited, when a priority level enters or leaves panic and when the
   * caller's zone starts or stops spilling calls to other zones (on the thread that makes the
   * tables again: an update's, or the first pick after a health change); off by default.
   */
  public void stateLog(StateChangeLog log) {
    this.states = log;
  }

  /** Returns the settings in force. */
  public LocalityConfig config() {
    return config;
  }

  /** Returns the plan, first remaking it if a node's health changed since it was made. */
  private LocalityPlan<T> current() {
    LocalityPlan<T> p = plan;
    if (!stale) {
      return p;
    }
    stale = false;
    LocalityPlan<T> next = new LocalityPlan<>(p.nodes, config, factory);
    if (PLAN.compareAndSet(this, p, next)) {
      LocalityChanges.log(states, p, next);
      return next;
    }
    // Another pick or an update swapped first, perhaps from health older than ours: mark the
    // tables stale again so that a later pick makes sure (at worst one rebuild too many).
    stale = true;
    return plan;
  }

  @Override
  public List<Node<T>> nodes() {
    return List.of(plan.nodes);
  }

  /** Returns {@code locality(<child algorithm>)}, e.g. {@code locality(round_robin)}. */
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
   * Builds a {@link LocalityBalancer}. Defaults: child balancers {@link Algorithm#ROUND_ROBIN}
   * (Envoy's default policy) with {@link BalancerConfig#defaults()} (whose random source also
   * drives the choice of level and locality), and {@link LocalityConfig#defaults()}.
   *
   * @param <T> the thing being balanced
   */
  public static final class Builder<T> {
    private Algorithm algorithm = Algorithm.ROUND_ROBIN;
    private BalancerConfig balancerConfig = BalancerConfig.defaults();
    private Supplier<? extends Balancer<T>> factory;
    private LocalityConfig locality = LocalityConfig.defaults();

    private Builder() {}

    /** Sets the child balancers' algorithm; default {@link Algorithm#ROUND_ROBIN}. */
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

    /**
     * Returns the balancer, with no endpoints until the first {@link LocalityBalancer#update}.
     *
     * @throws IllegalArgumentException if the factory makes a balancer that is no {@link
     *     ChildBalancer}
     */
    public LocalityBalancer<T> build() {
      return new LocalityBalancer<>(this);
    }
  }
}
