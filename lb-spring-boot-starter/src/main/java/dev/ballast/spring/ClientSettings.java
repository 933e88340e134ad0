package dev.ballast.spring;

import dev.ballast.core.Algorithm;
import dev.ballast.core.BalancerConfig;
import dev.ballast.core.Endpoint;
import dev.ballast.core.HashConfig;
import dev.ballast.core.policy.CoreOptions;
import dev.ballast.core.load.LoadOptions;
import dev.ballast.core.config.OptionSet;
import dev.ballast.core.config.ValueType;
import dev.ballast.core.config.Values;
import dev.ballast.core.load.WeightedRoundRobinConfig;
import dev.ballast.core.policy.ConfiguredPolicy;
import dev.ballast.core.policy.PolicyRegistry;
import dev.ballast.core.subset.SubsetConfig;
import dev.ballast.spring.internal.Discovery;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The checked settings of one named client, decoded from its properties ({@code
 * ballast.defaults.} overridden by {@code ballast.clients.<name>.}) by the same codec as every
 * front end's: lb-core's options ({@link CoreOptions}) here, lb-netty's ({@code
 * dev.ballast.netty.ClientOptions}) when its client is built.
 *
 * @param name the client's name (the key under {@code ballast.clients.})
 * @param protocol the protocol spoken to the endpoints; default {@link Protocol#FRAMED}
 * @param source the target of the endpoint source when the endpoints come from {@code
 *     discovery.*}, else null
 * @param endpoints the endpoints, in the order given
 * @param algorithm the balancing algorithm ({@code balancer}), deprecated: read {@link
 *     #policy()}; null when the balancer is a policy registered outside lb-core
 * @param balancerConfig the balancer's options
 * @param hashConfig the options of the algorithms that pick by key
 * @param subset the label-subset options
 * @param options every option as given, by canonical name (checked), for lb-netty's builder
 *     and the gRPC service config
 */
public record ClientSettings(String name, Protocol protocol, String source,
    List<Endpoint> endpoints, Algorithm algorithm, BalancerConfig balancerConfig,
    HashConfig hashConfig, SubsetConfig subset, Map<String, Object> options) {

  /** The protocol a client speaks to its endpoints. */
  public enum Protocol {
    /** Ballast's length-prefixed framed binary protocol with request ids (lb-netty). */
    FRAMED,
    /** HTTP/1.1. */
    HTTP,
    /** HTTP/2 (with {@code tls.enabled}, negotiated by ALPN; else cleartext, prior knowledge). */
    HTTP2,
    /**
     * gRPC only: the endpoints feed channels targeting {@code ballast://<name>}, and no lb-netty
     * client is made (its pool, retry and timeout options do not apply).
     */
    GRPC
  }

  /** The options the starter reads itself: {@code protocol} and {@code discovery.*}. */
  public static final OptionSet<Values, Values> STARTER_OPTIONS = OptionSet.ofValues("client",
      v -> { }, List.of(Values.option("protocol",
          ValueType.named(List.of(Protocol.values()), p -> p.name().toLowerCase(
              java.util.Locale.ROOT)), Protocol.FRAMED, "http", "htttp")))
      .with("discovery.", Discovery.OPTIONS, v -> v.get("discovery", new Values()),
          (v, d) -> v.put("discovery", d));

  /**
   * lb-core's options of a client: {@code endpoints}, {@code balancer} and the model's ({@link
   * CoreOptions}, and {@link LoadOptions#WEIGHTED_ROUND_ROBIN} under gRPC's names, e.g. {@code
   * blackout-period}).
   */
  public static final OptionSet<Values, Values> CORE_OPTIONS = OptionSet.ofValues("client",
      v -> { }, List.of(
          Values.option("endpoints", CoreOptions.ENDPOINTS, List.of(),
              List.of("10.0.0.1:7000;weight=3;zone=a"), List.of("10.0.0.1")),
          Values.option("balancer", CoreOptions.POLICY, PolicyRegistry.DEFAULT_POLICY,
              "ring-hash", "p2c-peak-ewmaa"),
          Values.option("policy", CoreOptions.POLICY_OPTIONS, Map.of(), Map.of(),
              Map.of("percent", "5"))))
      .with("", CoreOptions.BALANCER, v -> v.get("", BalancerConfig.defaults()),
          (v, c) -> v.put("", c))
      .with("", CoreOptions.HASH, v -> v.get("hash", HashConfig.defaults()),
          (v, c) -> v.put("hash", c))
      .with("", LoadOptions.WEIGHTED_ROUND_ROBIN,
          v -> v.get("reports", WeightedRoundRobinConfig.defaults()), (v, c) -> v.put("reports", c))
      .with("subset.", CoreOptions.SUBSET, v -> v.get("subset", SubsetConfig.defaults()),
          (v, c) -> v.put("subset", c));

  /**
   * Decodes a client's options.
   *
   * @param options every option given, by canonical name
   * @param requireEndpoints whether a client without endpoints nor discovery is an error
   * @throws dev.ballast.core.config.OptionException naming the first bad option
   */
  static ClientSettings decode(String name, Map<String, Object> options,
      boolean requireEndpoints, Protocol inferred) {
    Map<String, Object> starter = new HashMap<>();
    Map<String, Object> core = new HashMap<>();
    options.forEach((k, v) -> {
      if (STARTER_OPTIONS.find(k) != null) {
        starter.put(k, v);
      } else if (CORE_OPTIONS.find(k) != null) {
        core.put(k, v);
      }
    });
    Values s = STARTER_OPTIONS.decode(starter);
    Values c = CORE_OPTIONS.decode(core);
    String source = Discovery.target(s.get("discovery", new Values()));
    List<Endpoint> endpoints = c.get("endpoints", List.of());
    if (source != null && !endpoints.isEmpty()) {
      throw new dev.ballast.core.config.OptionException("endpoints", ValueType.show(endpoints)
          + " (expected: either endpoints or a discovery source, not both)", null);
    }
    if (requireEndpoints && source == null && endpoints.isEmpty()) {
      throw new dev.ballast.core.config.OptionException("endpoints", "none (expected: at least"
          + " one endpoint such as 10.0.0.1:7000;weight=3;zone=a, or discovery.*)", null);
    }
    String policy = c.get("balancer", PolicyRegistry.DEFAULT_POLICY);
    Algorithm algorithm = java.util.Arrays.stream(Algorithm.values())
        .filter(a -> a.id().equals(policy)).findFirst().orElse(null); // null: a registered one
    SubsetConfig subset = c.get("subset", SubsetConfig.defaults());
    checkPolicyOptions(policy, c.get("policy", Map.<String, Object>of()));
    Protocol protocol = starter.containsKey("protocol") || inferred == null
        ? s.get("protocol", Protocol.FRAMED) : inferred;
    return new ClientSettings(name, protocol, source, endpoints, algorithm,
        c.get("", BalancerConfig.defaults()), c.get("hash", HashConfig.defaults()), subset,
        Map.copyOf(options));
  }

  /**
   * Decodes a registered policy's own options ({@code policy.*}) with its option set, for every
   * protocol, so that a bad one stops start-up; a policy whose options are the client's
   * ({@link ConfiguredPolicy#optionsAtClientLevel}: lb-core's algorithms) takes none there.
   */
  private static void checkPolicyOptions(String policy, Map<String, Object> own) {
    ConfiguredPolicy.forClient(ConfiguredPolicy.named(policy), own, HashConfig.defaults(),
        WeightedRoundRobinConfig.defaults());
  }

  /**
   * Returns the balancing policy's canonical name ({@code balancer}): one of lb-core's
   * algorithms or a policy registered in {@link PolicyRegistry}; default {@code p2c_peak_ewma}.
   */
  public String policy() {
    Object given = options.get("balancer");
    return given != null ? CoreOptions.POLICY.parse(given)
        : algorithm != null ? algorithm.id() : PolicyRegistry.DEFAULT_POLICY;
  }

  /**
   * Returns the balancing algorithm, or null when the balancer is a registered policy.
   *
   * @deprecated a balancer is found by name: {@link #policy()} in lb-core's registry
   */
  @Deprecated(since = "0.1.0", forRemoval = true)
  public Algorithm algorithm() {
    return algorithm;
  }

  /** Returns the options lb-netty's client builder takes (all but the starter's own). */
  public Map<String, Object> clientOptions() {
    Map<String, Object> m = new HashMap<>(options);
    m.keySet().removeIf(k -> STARTER_OPTIONS.find(k) != null);
    return m;
  }
}
