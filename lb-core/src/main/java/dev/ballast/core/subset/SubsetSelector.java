package dev.ballast.core.subset;

import dev.ballast.core.Algorithm;
import dev.ballast.core.Balancer;
import dev.ballast.core.HashBalancer;
import dev.ballast.core.BalancerConfig;
import dev.ballast.core.Endpoint;
import dev.ballast.core.NoAvailableEndpointException;
import dev.ballast.core.Node;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Routes each request to the endpoints whose labels match the request's, then lets a child
 * balancer pick among them (label subsets, as in Envoy's subset load balancer and MOSN).
 *
 * <p><b>Selectors and subsets.</b> A selector is a set of label keys, e.g. {@code [zone]} or
 * {@code [zone, version]}. Each combination of values of a selector's keys that some endpoint has
 * is a subset: with endpoints {@code zone=a,version=1}, {@code zone=a,version=2} and {@code
 * zone=b,version=1}, the selector {@code [zone, version]} makes three subsets of one endpoint
 * each. Endpoints lacking one of the keys are in none of its subsets. Empty subsets are never
 * made, and subsets with the same members share one child balancer.
 *
 * <p><b>Picking.</b> {@link #pick(RequestLabels)} finds the subset whose labels equal the
 * request's, and picks from its child balancer. Build the {@link RequestLabels} once and reuse
 * it: the lookup then hashes nothing and allocates nothing. When the request's keys are not
 * exactly a selector's, the request misses, unless {@linkplain Builder#allowRedundantKeys
 * redundant keys} are allowed. A miss applies the {@linkplain FallbackPolicy fallback policy}.
 * A subset whose endpoints are all busy or closed does not fall back: its child balancer
 * decides (fail or panic pick, per {@link BalancerConfig#panicPick()}).
 *
 * <p><b>Nodes and updates.</b> The selector owns the nodes and gives each child balancer its
 * members, so every child shares the nodes and their load state. {@link #update} and {@link
 * #apply} swap one immutable state atomically while picks go on; nodes whose address stays keep
 * their state; when few endpoints change, only the subsets they touch are made again. A child
 * balancer is made on its subset's first pick. How: see the {@linkplain dev.ballast.core.subset
 * package} description.
 *
 * @param <T> the thing being balanced (a connection pool, a gRPC subchannel)
 */
public final class SubsetSelector<T> {

  private final SubsetIndex<T> index;
  private final FallbackPolicy fallbackPolicy;
  private final RequestLabels defaultLabels;
  private final boolean allowRedundantKeys;
  private final String name;
  private final String selectors; // as given, for a miss's error: a typo in one shows there
  private final LongAdder misses = new LongAdder();
  private final LongAdder fallbacks = new LongAdder();
  private volatile SubsetState<T> state;

  private SubsetSelector(Builder<T> b) {
    this.fallbackPolicy = b.fallbackPolicy;
    this.defaultLabels = b.fallbackPolicy == FallbackPolicy.DEFAULT_SUBSET ? b.defaultLabels : null;
    this.allowRedundantKeys = b.allowRedundantKeys;
    Algorithm algorithm = b.algorithm;
    BalancerConfig config = b.config;
    Supplier<? extends Balancer<T>> factory =
        b.factory != null ? b.factory : () -> algorithm.create(config);
    this.index = new SubsetIndex<>(factory, new ArrayList<>(b.selectors), fallbackPolicy,
        defaultLabels, b.rebuildThreshold, allowRedundantKeys ? b.resolutionCacheSize : 0);
    this.name = "label_subset(" + index.prototype.name() + ")";
    this.selectors = "selectors " + b.selectors;
    this.state = index.state;
  }

  /** Returns a builder: no selectors, {@link FallbackPolicy#NO_FALLBACK}, round robin. */
  public static <T> Builder<T> builder() {
    return new Builder<>();
  }

  /**
   * Picks a node among the endpoints whose labels match the request's, and counts one pending
   * request on it; end it with {@link Node#complete} or {@link Node#cancel}. Lock-free and, for
   * labels whose keys are exactly a selector's, allocation-free.
   *
   * @throws NoAvailableEndpointException if the labels match no subset and the fallback policy
   *     gives nothing to pick from (the message names the labels), or if the chosen set has no
   *     open endpoint and panic picks are off
   */
  public Node<T> pick(RequestLabels labels) {
    return balancerFor(labels).pick();
  }

  /**
   * Picks as {@link #pick(RequestLabels)} does, then by the key in the chosen subset when its
   * child picks by key ({@link HashBalancer}: ring hash, ketama, Maglev, or zones over one), so
   * that a key keeps its node within the subset; other children, and a null key, pick as
   * without one.
   *
   * @throws NoAvailableEndpointException as {@link #pick(RequestLabels)}
   */
  public Node<T> pick(RequestLabels labels, CharSequence key) {
    Balancer<T> b = balancerFor(labels);
    return key != null && b instanceof HashBalancer<T> h ? h.pick(key) : b.pick();
  }

  /**
   * Picks as {@link #pick(RequestLabels)} does but counts no pending request: asks the chosen
   * subset's child balancer for {@link Balancer#pickUncounted()}, for callers that count the
   * request with {@link Node#start()} only once it is really sent. lb-core's balancers then
   * count nothing; a child from a custom factory that keeps the interface's default counts and
   * cancels.
   *
   * @throws NoAvailableEndpointException as {@link #pick(RequestLabels)}
   */
  public Node<T> pickUncounted(RequestLabels labels) {
    return balancerFor(labels).pickUncounted();
  }

  /** The child balancer of the labels' subset, or of the fallback; throws if there is none. */
  private Balancer<T> balancerFor(RequestLabels labels) {
    SubsetState<T> s = state;
    Subset<T> subset = s.find(labels, allowRedundantKeys);
    return subset != null ? subset.child(s) : fallback(s, labels);
  }

  /**
   * Picks like {@link #pick(RequestLabels)} for labels given as a map; converts the map on every
   * call, so prefer a reused {@link RequestLabels} on hot paths.
   */
  public Node<T> pick(Map<String, String> labels) {
    return pick(RequestLabels.of(labels));
  }

  private Balancer<T> fallback(SubsetState<T> s, RequestLabels labels) {
    misses.increment();
    if (s.fallback() != null) {
      fallbacks.increment();
      return s.fallback().child(s);
    }
    throw new NoAvailableEndpointException(name, 0, name + ": request labels " + labels
        + " match no subset of " + selectors + " (" + fallbackPolicy.unmet(defaultLabels) + ")");
  }

  /**
   * Replaces the endpoint set and swaps in the new subsets atomically. Nodes whose address stays
   * keep their state and value and take the new weight and labels; new addresses get a node
   * whose value is made by {@code values}, called only after the whole set is validated.
   *
   * @return the nodes removed by this update, so their values can be closed or drained
   * @throws IllegalArgumentException if two endpoints share an address, the weights add up to
   *     more than {@link Integer#MAX_VALUE}, or the child balancers cannot hold a subset (e.g.
   *     VNSWRR's ring limit); the previous set then stays in force, untouched
   */
  public synchronized List<Node<T>> update(
      Collection<Endpoint> endpoints, Function<? super Endpoint, ? extends T> values) {
    Objects.requireNonNull(endpoints, "endpoints");
    Objects.requireNonNull(values, "values");
    List<Node<T>> removed = index.update(endpoints, values);
    state = index.state;
    return removed;
  }

  /**
   * Applies a delta, as registries push them (an etcd watch event, a Nacos or ZooKeeper change,
   * an xDS incremental response), and swaps in the new subsets atomically. Each upsert adds its
   * address or, for a known address, gives its node the new weight and labels (the node keeps
   * its state and value); each removed address drops its node. Removing an address that is not
   * known does nothing. New nodes get a value made by {@code values}, called only after the
   * whole delta is validated, and come after the existing nodes in {@link #nodes()}.
   *
   * <p>Reads no endpoint outside the delta. Only the subsets a changed endpoint leaves, joins or
   * is reweighted in get a new member set and, on first pick, a new child balancer; every other
   * subset keeps its own. Above the {@linkplain Builder#rebuildThreshold rebuild threshold},
   * every subset is made again. A delta gives the subsets {@link #update} gives.
   *
   * @param upserts endpoints added or changed; an endpoint equal to the current one is no change
   * @param removedAddresses the {@link Endpoint#address()} of endpoints to remove
   * @param values makes the value of each new node
   * @return the nodes removed by this delta, so their values can be closed or drained
   * @throws IllegalArgumentException if an address occurs twice in the delta (in the upserts,
   *     the removals, or both), the weights would add up to more than {@link Integer#MAX_VALUE},
   *     or the child balancers cannot hold a subset; the previous set then stays untouched
   * @throws NullPointerException if an argument, an upsert or a removed address is null (also
   *     leaving the previous set untouched)
   */
  public synchronized List<Node<T>> apply(Collection<Endpoint> upserts,
      Collection<String> removedAddresses, Function<? super Endpoint, ? extends T> values) {
    Objects.requireNonNull(upserts, "upserts");
    Objects.requireNonNull(removedAddresses, "removedAddresses");
    Objects.requireNonNull(values, "values");
    List<Node<T>> removed = index.apply(upserts, removedAddresses, values);
    state = index.state;
    return removed;
  }

  /** Returns the current nodes, in update order. */
  public List<Node<T>> nodes() {
    return state.nodes();
  }

  /**
   * Returns the nodes a pick with these labels would choose from, without falling back: the
   * matching subset's members in a stable order, or an empty list on a miss.
   */
  public List<Node<T>> members(RequestLabels labels) {
    SubsetState<T> s = state;
    Subset<T> subset = s.find(labels, allowRedundantKeys);
    return subset == null ? List.of() : subset.nodes(s);
  }

  /** Returns the nodes the fallback policy picks from on a miss; empty for NO_FALLBACK. */
  public List<Node<T>> fallbackMembers() {
    SubsetState<T> s = state;
    return s.fallback() == null ? List.of() : s.fallback().nodes(s);
  }

  /** Returns {@code label_subset(<child algorithm>)}, e.g. {@code label_subset(round_robin)}. */
  public String name() {
    return name;
  }

  /** Returns the fallback policy. */
  public FallbackPolicy fallbackPolicy() {
    return fallbackPolicy;
  }

  /** Returns the current subsets, their sizes and the miss and fallback counts. */
  public SubsetStats stats() {
    return SubsetStats.of(state, defaultLabels != null, misses.sum(), fallbacks.sum(), index);
  }

  @Override
  public String toString() {
    return name + stats();
  }

  /**
   * Builds a {@link SubsetSelector}. Defaults: no selectors (every request misses), {@link
   * FallbackPolicy#NO_FALLBACK}, child balancers {@link Algorithm#ROUND_ROBIN} (Envoy's default
   * policy) with {@link BalancerConfig#defaults()}, redundant keys not allowed, a cache of 1024
   * resolved label sets, and a rebuild threshold of 0.25.
   *
   * @param <T> the thing being balanced
   */
  public static final class Builder<T> {
    private final Set<List<String>> selectors = new LinkedHashSet<>();
    private FallbackPolicy fallbackPolicy = FallbackPolicy.NO_FALLBACK;
    private RequestLabels defaultLabels;
    private Algorithm algorithm = Algorithm.ROUND_ROBIN;
    private BalancerConfig config = BalancerConfig.defaults();
    private Supplier<? extends Balancer<T>> factory;
    private boolean allowRedundantKeys;
    private int resolutionCacheSize = 1024;
    private double rebuildThreshold = 0.25;

    private Builder() {}

    /**
     * Adds a selector: the label keys whose value combinations make subsets.
     *
     * @throws IllegalArgumentException if there is no key, a key is empty or repeated, or the
     *     same selector was added before
     */
    public Builder<T> selector(String... keys) {
      Objects.requireNonNull(keys, "keys");
      return selector(List.of(keys));
    }

    /** Adds a selector given as a collection of keys; see {@link #selector(String...)}. */
    public Builder<T> selector(Collection<String> keys) {
      Objects.requireNonNull(keys, "keys");
      if (keys.isEmpty()) {
        throw new IllegalArgumentException("selector: no keys (expected: at least one key)");
      }
      TreeSet<String> sorted = new TreeSet<>();
      for (String k : keys) {
        Objects.requireNonNull(k, "selector key");
        if (k.isEmpty()) {
          throw new IllegalArgumentException("selector " + keys + ": empty key (expected: non-empty)");
        }
        if (!sorted.add(k)) {
          throw new IllegalArgumentException("selector " + keys + ": key " + k + " given twice");
        }
      }
      if (!selectors.add(List.copyOf(sorted))) {
        throw new IllegalArgumentException("selector " + sorted + ": given twice");
      }
      return this;
    }

    /** Adds several selectors; see {@link #selector(String...)}. */
    public Builder<T> selectors(Collection<? extends Collection<String>> selectorList) {
      Objects.requireNonNull(selectorList, "selectors");
      for (Collection<String> s : selectorList) {
        selector(s);
      }
      return this;
    }

    /** Sets what a request matching no subset gets; default {@link FallbackPolicy#NO_FALLBACK}. */
    public Builder<T> fallbackPolicy(FallbackPolicy policy) {
      this.fallbackPolicy = Objects.requireNonNull(policy, "fallbackPolicy");
      return this;
    }

    /**
     * Sets the labels of the default subset, used by {@link FallbackPolicy#DEFAULT_SUBSET}: the
     * endpoints having all of them (every endpoint for empty labels). They need not be a
     * selector's keys. No default.
     */
    public Builder<T> defaultSubset(Map<String, String> labels) {
      this.defaultLabels = RequestLabels.of(Objects.requireNonNull(labels, "defaultSubset"));
      return this;
    }

    /** Sets the default subset's labels; see {@link #defaultSubset(Map)}. */
    public Builder<T> defaultSubset(RequestLabels labels) {
      this.defaultLabels = Objects.requireNonNull(labels, "defaultSubset");
      return this;
    }

    /** Sets the child balancers' algorithm; default {@link Algorithm#ROUND_ROBIN}. */
    public Builder<T> algorithm(Algorithm algorithm) {
      this.algorithm = Objects.requireNonNull(algorithm, "algorithm");
      this.factory = null;
      return this;
    }

    /** Sets the child balancers' settings; default {@link BalancerConfig#defaults()}. */
    public Builder<T> config(BalancerConfig config) {
      this.config = Objects.requireNonNull(config, "config");
      return this;
    }

    /**
     * Sets a factory of child balancers instead of {@link #algorithm} and {@link #config}. Every
     * balancer it makes must be a {@link dev.ballast.core.ChildBalancer} (as lb-core's
     * algorithms' are) of the same algorithm: the selector makes the nodes with one of them and
     * hands them to the others.
     *
     * <p>{@link #build()} throws {@link IllegalArgumentException} if the first balancer made is
     * no {@code ChildBalancer}.
     */
    public Builder<T> balancerFactory(Supplier<? extends Balancer<T>> factory) {
      this.factory = Objects.requireNonNull(factory, "balancerFactory");
      return this;
    }

    /**
     * Sets whether request labels may differ from every selector's keys (Envoy's {@code
     * allow_redundant_keys}); default false: the request's keys must be exactly a selector's.
     * When true, request labels whose key is in no selector are ignored, and the request goes
     * to the endpoints having all its remaining labels, found by intersecting their slot sets
     * once and cached until the next update. If the remaining keys are exactly a selector's,
     * this is that selector's subset. No remaining labels is a miss.
     */
    public Builder<T> allowRedundantKeys(boolean allow) {
      this.allowRedundantKeys = allow;
      return this;
    }

    /** Sets how many resolved label sets are cached between updates; default 1024. */
    public Builder<T> resolutionCacheSize(int size) {
      if (size < 1) {
        throw new IllegalArgumentException("resolutionCacheSize: " + size + " (expected: > 0)");
      }
      this.resolutionCacheSize = size;
      return this;
    }

    /**
     * Sets the fraction of endpoints that may change (added, removed, relabelled, reweighted) in
     * one update for it to rebuild only the touched subsets; above it, every subset is rebuilt.
     * 0 always rebuilds; default 0.25.
     */
    public Builder<T> rebuildThreshold(double fraction) {
      if (!(fraction >= 0 && fraction <= 1)) {
        throw new IllegalArgumentException("rebuildThreshold: " + fraction + " (expected: 0-1)");
      }
      this.rebuildThreshold = fraction;
      return this;
    }

    /**
     * Returns the selector, with no endpoints until the first {@link SubsetSelector#update}.
     *
     * @throws IllegalStateException if the fallback policy is DEFAULT_SUBSET and no default
     *     subset was set
     */
    public SubsetSelector<T> build() {
      if (fallbackPolicy == FallbackPolicy.DEFAULT_SUBSET && defaultLabels == null) {
        throw new IllegalStateException(
            "defaultSubset: not set (expected: labels when fallbackPolicy is DEFAULT_SUBSET)");
      }
      return new SubsetSelector<>(this);
    }
  }
}
