package dev.ballast.spring;

import dev.ballast.core.Endpoint;
import dev.ballast.core.config.OptionException;
import dev.ballast.core.policy.BalancingPolicy;
import dev.ballast.core.policy.ConfiguredPolicy;
import dev.ballast.core.policy.Trait;
import dev.ballast.core.source.EndpointFeed;
import dev.ballast.core.source.EndpointSourceProvider;
import dev.ballast.grpc.AlgorithmLoadBalancerProvider;
import dev.ballast.grpc.EndpointRegistry;
import dev.ballast.grpc.LabelSubsetLoadBalancerProvider;
import dev.ballast.grpc.LocalityLoadBalancerProvider;
import dev.ballast.spring.internal.PropertyKeys;
import io.grpc.LoadBalancerProvider;
import io.grpc.LoadBalancerRegistry;
import io.grpc.NameResolver.ConfigOrError;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Feeds gRPC channels targeting {@code ballast://<name>}: publishes every configured client's
 * endpoints (with their weights and labels) into lb-grpc's {@link EndpointRegistry} under the
 * client's name, where the {@code ballast} name resolver reads them. Gives the matching service
 * config too (balancer, its settings and label subsets), for channels built by hand.
 *
 * <pre>{@code
 * ManagedChannel ch = ManagedChannelBuilder.forTarget("ballast://orders")
 *     .defaultServiceConfig(endpoints.serviceConfig("orders"))  // or a policy name of your own
 *     .usePlaintext().build();
 * }</pre>
 *
 * <p>{@link #close()} (called when the Spring context closes) withdraws what it published,
 * unless a newer list has replaced it.
 */
public final class BallastGrpcEndpoints implements AutoCloseable {

  private static final System.Logger LOG = System.getLogger(BallastGrpcEndpoints.class.getName());

  private final BallastSettings settings;
  private final EndpointRegistry registry;
  private final List<EndpointFeed> feeds = new ArrayList<>();
  // The last list published per client, withdrawn on close; guarded by this.
  private final Map<String, List<Endpoint>> published = new LinkedHashMap<>();
  private boolean closed;

  /**
   * Publishes every client's endpoints into the registry at once; a client whose endpoints
   * come from discovery has them published as its source pushes them.
   */
  public BallastGrpcEndpoints(BallastSettings settings, EndpointRegistry registry) {
    this.settings = Objects.requireNonNull(settings, "settings");
    this.registry = Objects.requireNonNull(registry, "registry");
    for (ClientSettings c : settings.clients().values()) {
      if (c.source() == null) {
        publish(c.name(), c.endpoints());
      } else {
        feeds.add(EndpointFeed.builder(EndpointSourceProvider.open(c.source()))
            .start(endpoints -> publish(c.name(), endpoints)));
      }
    }
  }

  private synchronized void publish(String name, List<Endpoint> endpoints) {
    if (!closed) {
      registry.publish(name, endpoints);
      published.put(name, List.copyOf(endpoints));
    }
  }

  /**
   * Stops following the discovery sources and withdraws every client's endpoints from the
   * registry, the last list published for each, unless a newer list has replaced it ({@link
   * EndpointRegistry#unpublish}). Idempotent.
   */
  @Override
  public void close() {
    feeds.forEach(EndpointFeed::close);
    synchronized (this) {
      closed = true;
      published.forEach(registry::unpublish);
      published.clear();
    }
  }

  /** Returns the registry the endpoints are published in. */
  public EndpointRegistry registry() {
    return registry;
  }

  /** Returns the target of a configured client, {@code ballast://<name>}. */
  public String target(String name) {
    return "ballast://" + settings.get(name).name();
  }

  /**
   * Returns a gRPC service config (for {@code ManagedChannelBuilder.defaultServiceConfig}) that
   * selects the client's balancer, lb-grpc's policy of the same name ({@code p2c_peak_ewma},
   * {@code ring_hash}, a registered policy's; {@code round_robin} is gRPC's own, without slow
   * start), with the options the client was given, under the same names (for the algorithms
   * that read load reports, gRPC's {@code weighted_round_robin} fields too, e.g. {@code
   * blackoutPeriod}; for a registered policy, its {@code policy.*} options beside them): the
   * policy decodes them with the same codec that checked them at start-up, nothing is written
   * back from the checked values. With any {@code locality.*} option, that policy becomes the
   * child of lb-grpc's {@code locality} (priorities, localities, zone-aware routing; {@code
   * round_robin} is then gRPC's in each locality). With {@code subset.selectors} set, that
   * policy (or {@code locality}) becomes the child of lb-grpc's {@code label_subset} (request
   * labels from headers {@code <subset.header-prefix><key>}, e.g. {@code x-lb-zone}).
   *
   * @throws java.util.NoSuchElementException if no client has the name
   */
  public Map<String, ?> serviceConfig(String name) {
    return serviceConfig(settings.get(name));
  }

  /**
   * Checks a gRPC client's service config with the gRPC policies that will parse it, so that a
   * combination no policy can run (a key-picking balancer under label subsets, gRPC's own
   * {@code round_robin} as subsets' zones) stops start-up naming {@code balancer}. A policy no
   * gRPC provider is registered for yet is logged, not refused: an application may register one
   * after start-up, before its channels resolve.
   *
   * @throws OptionException naming {@code balancer}, with the policy's error
   */
  static void check(ClientSettings c) {
    Map<String, ?> config = serviceConfig(c);
    Map<?, ?> top = (Map<?, ?>) ((List<?>) config.get("loadBalancingConfig")).get(0);
    Map.Entry<?, ?> policy = top.entrySet().iterator().next();
    LoadBalancerProvider provider = LoadBalancerRegistry.getDefaultRegistry()
        .getProvider(String.valueOf(policy.getKey()));
    if (provider == null) {
      LOG.log(System.Logger.Level.WARNING, () -> "client " + c.name() + ": no gRPC policy named "
          + policy.getKey() + " is registered; its channels fail until one is (lb-grpc-orca on"
          + " the class path for weighted_round_robin and p2c_utilization, a"
          + " PolicyLoadBalancerProvider for a team's policy)");
      return;
    }
    @SuppressWarnings("unchecked")
    ConfigOrError parsed = provider.parseLoadBalancingPolicyConfig(
        (Map<String, ?>) policy.getValue());
    if (parsed.getError() != null) {
      throw new OptionException("balancer", c.policy() + " (expected: a balancer gRPC can run"
          + " with these options; " + inSpringTerms(parsed.getError().getDescription()) + ")",
          null);
    }
  }

  /**
   * Returns a refusal of the service config built here in the words of its properties: the
   * composites as the groups that made them, and no {@code locality} among the balancers to
   * choose (zones are {@code locality.*}, not a balancer).
   */
  private static String inSpringTerms(String grpcError) {
    return PropertyKeys.springNames(grpcError
        .replace(LabelSubsetLoadBalancerProvider.POLICY_NAME + " config: childPolicy: ",
            "under label subsets (subset.*): ")
        .replaceAll(LocalityLoadBalancerProvider.POLICY_NAME + "(?: config)?: childPolicy: ",
            "under zones (locality.*): ")
        .replace("[" + LocalityLoadBalancerProvider.POLICY_NAME + ", ", "["));
  }

  private static Map<String, ?> serviceConfig(ClientSettings c) {
    Map<String, Object> policyConfig = new LinkedHashMap<>();
    Map<String, Object> subsetConfig = new LinkedHashMap<>();
    Map<String, Object> localityConfig = new LinkedHashMap<>();
    c.options().forEach((k, v) -> {
      if (k.startsWith("subset.")) {
        subsetConfig.put(k.substring("subset.".length()), v);
      } else if (k.startsWith("locality.")) {
        localityConfig.put(k.substring("locality.".length()), v);
      }
    });
    // the balancer's options unless the policy picks by key (a registered policy's too, as in
    // lb-netty's clients), and the policy's own: at the client's level for lb-core's
    // algorithms, under policy.* for a registered one
    BalancingPolicy<?> p = ConfiguredPolicy.named(c.policy());
    boolean keyed = p.traits().contains(Trait.PICKS_BY_KEY);
    boolean ownAtClientLevel = ConfiguredPolicy.optionsAtClientLevel(p);
    c.options().forEach((k, v) -> {
      if (!keyed && AlgorithmLoadBalancerProvider.OPTIONS.find(k) != null
          || ownAtClientLevel && p.options().find(k) != null) {
        policyConfig.put(k, v);
      }
    });
    if (c.options().get("policy") instanceof Map<?, ?> own) {
      own.forEach((k, v) -> policyConfig.put(String.valueOf(k), v));
    }
    Map<String, Object> policy = Map.of(c.policy(), policyConfig);
    if (!localityConfig.isEmpty()) { // zones over the balancer, as in lb-netty's clients
      localityConfig.put("childPolicy", List.of(policy));
      policy = Map.of(LocalityLoadBalancerProvider.POLICY_NAME, localityConfig);
    }
    if (c.subset().enabled()) {
      subsetConfig.put("childPolicy", List.of(policy));
      policy = Map.of(LabelSubsetLoadBalancerProvider.POLICY_NAME, subsetConfig);
    }
    return Map.of("loadBalancingConfig", List.of(policy));
  }

  @Override
  public String toString() {
    return "BallastGrpcEndpoints" + settings.names();
  }
}
