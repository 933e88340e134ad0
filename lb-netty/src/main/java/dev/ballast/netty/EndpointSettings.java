package dev.ballast.netty;

import dev.ballast.core.Algorithm;
import dev.ballast.core.Balancer;
import dev.ballast.core.BalancerConfig;
import dev.ballast.core.Endpoint;
import dev.ballast.core.HashConfig;
import dev.ballast.core.NoAvailableEndpointException;
import dev.ballast.core.load.WeightedRoundRobinConfig;
import dev.ballast.core.policy.BalancingPolicy;
import dev.ballast.core.policy.ConfiguredPolicy;
import dev.ballast.core.policy.PolicyRegistry;
import dev.ballast.core.source.EndpointFeed;
import dev.ballast.core.source.EndpointSource;
import dev.ballast.core.source.EndpointSourceProvider;
import dev.ballast.core.subset.FallbackPolicy;
import dev.ballast.core.subset.SubsetConfig;
import dev.ballast.core.subset.SubsetSelector;
import dev.ballast.netty.internal.Router;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
/**
 * Where a {@link BallastClient}'s calls go: its name, its endpoints or their source, the
 * balancer and the label subsets, each with its default; every setter checks its argument and
 * returns the builder. The first half of {@link BallastClient.Builder}'s settings ({@link
 * ClientSettings} holds how calls go); not meant to be extended outside this package.
 *
 * @param <Req> the request type
 * @param <Rep> the response type
 * @param <B> the builder's own type
 */
public abstract class EndpointSettings<Req, Rep, B extends EndpointSettings<Req, Rep, B>> {
  String name = "ballast";
  List<Endpoint> endpoints = List.of();
  EndpointSource source;
  BalancerConfig balancerConfig = BalancerConfig.defaults();
  // the policy's canonical name in lb-core's registry, and a registered policy's own options
  // (policy.*); a policy whose options are the client's own (hash, load reports) reads those
  String policyName = PolicyRegistry.DEFAULT_POLICY;
  Map<String, Object> policyOptions = Map.of();
  HashConfig hashConfig = HashConfig.defaults();
  WeightedRoundRobinConfig loadReports = WeightedRoundRobinConfig.defaults();
  BalancerFactory balancerFactory = factory(ConfiguredPolicy.of(policyName, null));
  // the factory the last balancer(String, ...) made, to tell it from one set by hand
  private BalancerFactory policyFactory = balancerFactory;
  SubsetConfig subsets = SubsetConfig.defaults();

  EndpointSettings() {
  }

  abstract B self();

  /** Sets the client's name, used as the {@code client} metrics tag; default ballast. */
  public B name(String name) {
    this.name = Objects.requireNonNull(name, "name");
    return self();
  }

  /** Sets the initial endpoints; default none. */
  public B endpoints(Collection<Endpoint> endpoints) {
    this.endpoints = List.copyOf(endpoints);
    return self();
  }

  /** Sets the initial endpoints in the textual form, comma-separated. */
  public B endpoints(String endpoints) {
    return endpoints(Endpoint.parseList(endpoints));
  }

  /**
   * Takes the endpoints from a source (a registry, DNS) through an {@link EndpointFeed} with
   * its defaults: each push replaces or changes the set as {@link
   * BallastClient#updateEndpoints} does (a subset client gets deltas), malformed entries are
   * skipped, and an outage of the source keeps the last endpoints. Connection failures ask the
   * source for an early re-read. The client starts the source when built and closes it when
   * closed. Until the source's first endpoints arrive, a call waits for them (within its
   * deadline) rather than failing; if none have arrived within the client's {@linkplain ClientSettings#timeout
   * timeout} of the build, calls that find no endpoint fail at once again ({@code
   * NoAvailableEndpointException}). Default: none.
   */
  public B source(EndpointSource source) {
    this.source = Objects.requireNonNull(source, "source");
    return self();
  }

  /**
   * Takes the endpoints from the source of a target URI, found by its scheme on the class
   * path: {@code zookeeper://host:port/services/orders} (lb-discovery-zookeeper), {@code
   * etcd://host:port/services/orders/} (lb-discovery-etcd), {@code
   * ballast-dns:///orders.internal:8080} (lb-discovery-dns).
   *
   * @throws IllegalArgumentException if no source handles the scheme, or it rejects the target
   */
  public B source(String target) {
    return source(EndpointSourceProvider.open(target));
  }

  /** Sets the balancing algorithm; default {@link Algorithm#P2C_PEAK_EWMA}. */
  public B balancer(Algorithm algorithm) {
    return balancer(algorithm, HashConfig.defaults());
  }

  /**
   * Sets the balancing algorithm with the settings of the algorithms that pick by key ({@link
   * HashConfig}: ring sizes, Maglev's table size, bounded load, ketama's key hash); a call
   * gives its key with {@link CallOptions#withKey}.
   */
  public B balancer(Algorithm algorithm, HashConfig hashConfig) {
    Objects.requireNonNull(algorithm, "algorithm");
    this.hashConfig = Objects.requireNonNull(hashConfig, "hashConfig");
    return balancer(algorithm.id());
  }

  /**
   * Sets the settings of the algorithms that weigh endpoints by their servers' load reports
   * ({@link Algorithm#WEIGHTED_ROUND_ROBIN}, {@link Algorithm#P2C_UTILIZATION}): gRFC A58's
   * blackout period, weight expiration and update periods and error penalty, under gRPC's names
   * and defaults ({@link WeightedRoundRobinConfig#defaults()}); its out-of-band settings are
   * read by the gRPC front end only, as lb-netty reads each response's report. In either order
   * with {@link #balancer(Algorithm)}; a factory set by hand ({@link
   * #balancer(BalancerFactory)}) makes its own balancers and does not read it.
   */
  public B loadReports(WeightedRoundRobinConfig config) {
    this.loadReports = Objects.requireNonNull(config, "config");
    return remake();
  }

  /**
   * Sets the balancing policy by name: one of lb-core's algorithms ({@code vnswrr}, see {@link
   * Algorithm}) or a policy registered in {@link PolicyRegistry#defaultRegistry()}, with its
   * defaults.
   *
   * @throws dev.ballast.core.config.OptionException naming an unknown name and the nearest
   */
  public B balancer(String policy) {
    return balancer(policy, Map.of());
  }

  /**
   * Sets the balancing policy by name with its own options ({@link
   * BalancingPolicy#options()}), decoded once here. A policy with none, or whose options are a
   * client's own ({@link ConfiguredPolicy#optionsAtClientLevel}: lb-core's algorithms), takes
   * them at the client's level instead ({@link ClientOptions}), and no options here.
   *
   * @throws dev.ballast.core.config.OptionException naming an unknown name, or a bad option and
   *     the nearest the policy takes
   */
  public B balancer(String policy, Map<String, ?> options) {
    BalancingPolicy<?> p = ConfiguredPolicy.named(policy);
    ConfiguredPolicy<?> configured = ConfiguredPolicy.forClient(p, options, hashConfig,
        loadReports);
    this.policyName = p.name();
    this.policyOptions = ConfiguredPolicy.optionsAtClientLevel(p) || options == null ? Map.of()
        : java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(options));
    this.balancerFactory = factory(configured);
    this.policyFactory = balancerFactory;
    return self();
  }

  private static BalancerFactory factory(ConfiguredPolicy<?> configured) {
    return new BalancerFactory() {
      @Override
      public <T> Balancer<T> create(BalancerConfig config) {
        return configured.newBalancer(config);
      }
    };
  }

  /** Makes the policy's factory anew over changed client-level options, unless set by hand. */
  private B remake() {
    return balancerFactory == policyFactory ? balancer(policyName, policyOptions) : self();
  }

  /**
   * Sets the options of the algorithms that pick by key; the policy's balancer is made anew over
   * them (a factory set by hand is kept), and a later policy that picks by key reads them.
   */
  B hashOptions(HashConfig hashConfig) {
    this.hashConfig = Objects.requireNonNull(hashConfig, "hashConfig");
    return remake();
  }

  /**
   * Sets the chosen policy's own options (the {@code policy} option, applied after {@code
   * balancer}); decoded by the policy at once.
   *
   * @throws dev.ballast.core.config.OptionException naming the bad one, or any for one of
   *     lb-core's algorithms, which take theirs at the client's level
   */
  B policyOptions(Map<String, Object> options) {
    return balancer(policyName, options);
  }

  /** Sets any balancer factory, e.g. a composite one. */
  public B balancer(BalancerFactory factory) {
    this.balancerFactory = Objects.requireNonNull(factory, "factory");
    return self();
  }

  /**
   * Routes each call by its {@linkplain CallOptions#withLabels labels} through lb-core's {@link
   * SubsetSelector}: to the endpoints whose labels have the call's values for one of the {@code
   * selectors} (label key sets), where the {@linkplain #balancer(Algorithm) balancer} picks;
   * subsets share the nodes, so an endpoint's load is seen in each. Calls matching no subset
   * get the {@code fallback} ({@link FallbackPolicy#DEFAULT_SUBSET} needs {@code
   * defaultSubset}); under NO_FALLBACK they fail with {@link NoAvailableEndpointException}
   * naming the labels. Default: no subsets (labels are ignored).
   *
   * @throws IllegalArgumentException if there is no selector, a selector has no key, an empty
   *     or repeated key, or is given twice, or if DEFAULT_SUBSET comes without labels
   */
  public B subsets(Collection<? extends Collection<String>> selectors,
      FallbackPolicy fallback, Map<String, String> defaultSubset) {
    this.subsets = subsets.toBuilder()
        .selectors(Router.checkSubsets(selectors, fallback, defaultSubset))
        .fallbackPolicy(fallback)
        .defaultSubset(fallback == FallbackPolicy.DEFAULT_SUBSET ? defaultSubset : null)
        .build();
    return self();
  }

  /** Sets the label subsets from their options ({@link SubsetConfig}); off without selectors. */
  public B subsets(SubsetConfig subsets) {
    Objects.requireNonNull(subsets, "subsets");
    if (subsets.enabled()) {
      Router.checkSubsets(subsets.selectors(), subsets.fallbackPolicy(), subsets.defaultSubset());
    }
    this.subsets = subsets;
    return self();
  }

  /**
   * Lets call labels carry keys that are in no selector (Envoy's {@code allow_redundant_keys},
   * see {@link SubsetSelector.Builder#allowRedundantKeys}); only with {@link #subsets}; default
   * false.
   */
  public B subsetsAllowRedundantKeys(boolean allow) {
    this.subsets = subsets.toBuilder().allowRedundantKeys(allow).build();
    return self();
  }

  /** Sets the balancer's settings; default {@link BalancerConfig#defaults()}. */
  public B balancerConfig(BalancerConfig config) {
    this.balancerConfig = Objects.requireNonNull(config, "config");
    return self();
  }
}
