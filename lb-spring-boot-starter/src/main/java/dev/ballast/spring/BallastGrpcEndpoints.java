package dev.ballast.spring;

import dev.ballast.core.Algorithm;
import dev.ballast.core.BalancerConfig;
import dev.ballast.core.Endpoint;
import dev.ballast.core.HashConfig;
import dev.ballast.core.source.EndpointFeed;
import dev.ballast.core.source.EndpointSourceProvider;
import dev.ballast.grpc.EndpointRegistry;
import dev.ballast.spring.internal.PropertyChecks;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

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

  /** Puts a hash policy's settings into its gRPC service-config entry. */
  private static void hashPolicyConfig(Algorithm algorithm, HashSettings hash,
      Map<String, Object> config) {
    HashConfig h = hash.config();
    if (!hash.requestHashHeader().isEmpty()) {
      config.put("requestHashHeader", hash.requestHashHeader());
    }
    if (h.loadBound() > 0) {
      config.put("loadBound", h.loadBound());
    }
    if (algorithm == Algorithm.RING_HASH) {
      config.put("minRingSize", (double) h.minRingSize());
      config.put("maxRingSize", (double) h.maxRingSize());
      return;
    }
    if (algorithm == Algorithm.MAGLEV) {
      config.put("tableSize", (double) h.tableSize());
    } else {
      config.put("hash", h.keyHash().id());
    }
    if (h.nameLabel() != null) {
      config.put("nameLabel", h.nameLabel());
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
   * selects the client's balancer with its settings: lb-grpc's policies {@code vnswrr}, {@code
   * swrr}, {@code weighted_random}, {@code least_loaded}, {@code p2c_peak_ewma} (with {@code
   * decayTime}, {@code defaultRtt} and {@code failurePenalty}; {@code swrr} with {@code
   * maxFails}), {@code aperture} (with the client's coordinate), all with {@code slowStart} when
   * it is on, and gRPC's own {@code round_robin} (which has no slow start); the ones that pick by
   * key, {@code ballast_ring_hash} (balancer {@code ring-hash}), {@code ketama} and {@code
   * maglev}, with the {@code hash.*} settings they read (no slow start: a key keeps its
   * endpoint); with {@code subset.selectors} set, that policy becomes the child of lb-grpc's
   * {@code label_subset} (request labels from headers {@code <subset.header-prefix><key>}, e.g.
   * {@code x-lb-zone}).
   *
   * @throws java.util.NoSuchElementException if no client has the name
   */
  public Map<String, ?> serviceConfig(String name) {
    ClientSettings c = settings.get(name);
    Map<String, Object> policyConfig = new LinkedHashMap<>();
    BalancerConfig bc = c.balancerConfig();
    if (c.algorithm() == Algorithm.P2C_PEAK_EWMA) {
      policyConfig.put("decayTime", PropertyChecks.format(bc.decayTime()));
      policyConfig.put("defaultRtt", PropertyChecks.format(bc.defaultRtt()));
      policyConfig.put("failurePenalty", bc.failurePenalty());
    } else if (c.algorithm() == Algorithm.SWRR) {
      // Service-config maps hold JSON numbers as Double; gRPC rejects other number types.
      policyConfig.put("maxFails", (double) bc.maxFails());
    } else if (c.algorithm() == Algorithm.APERTURE) {
      policyConfig.put("clientIndex", (double) bc.apertureIndex());
      policyConfig.put("clientCount", (double) bc.apertureCount());
    } else if (c.algorithm().picksByKey()) {
      hashPolicyConfig(c.algorithm(), c.hash(), policyConfig);
    }
    if (!bc.slowStartWindow().isZero() && c.algorithm() != Algorithm.ROUND_ROBIN
        && !c.algorithm().picksByKey()) {
      policyConfig.put("slowStart", Map.of(
          "window", PropertyChecks.format(bc.slowStartWindow()),
          "aggression", bc.slowStartAggression(),
          "minWeightPercent", bc.slowStartMinWeightPercent()));
    }
    // gRPC-java registers ring_hash itself: lb-grpc's takes a name of its own
    String policyName = c.algorithm() == Algorithm.RING_HASH ? "ballast_ring_hash"
        : c.algorithm().id();
    Map<String, Object> policy = Map.of(policyName, policyConfig);
    ClientSettings.Subset subset = c.subset();
    if (subset.enabled()) {
      Map<String, Object> subsetConfig = new LinkedHashMap<>();
      List<List<String>> selectors = new ArrayList<>();
      for (Set<String> keys : subset.selectors()) {
        selectors.add(List.copyOf(keys));
      }
      subsetConfig.put("selectors", selectors);
      subsetConfig.put("fallbackPolicy", subset.fallbackPolicy().name());
      if (!subset.defaultSubset().isEmpty()) {
        subsetConfig.put("defaultSubset", subset.defaultSubset());
      }
      subsetConfig.put("headerPrefix", subset.headerPrefix());
      subsetConfig.put("allowRedundantKeys", subset.allowRedundantKeys());
      subsetConfig.put("childPolicy", List.of(policy));
      policy = Map.of("label_subset", subsetConfig);
    }
    return Map.of("loadBalancingConfig", List.of(policy));
  }

  @Override
  public String toString() {
    return "BallastGrpcEndpoints" + settings.names();
  }
}
