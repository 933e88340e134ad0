package dev.ballast.grpc.internal;

import dev.ballast.core.Balancer;
import dev.ballast.core.BalancerConfig;
import dev.ballast.core.ChildBalancer;
import dev.ballast.core.Endpoint;
import dev.ballast.core.HashBalancer;
import dev.ballast.core.HashConfig;
import dev.ballast.core.Node;
import dev.ballast.core.Ticker;
import dev.ballast.core.hash.RingHash;
import dev.ballast.core.policy.BalancingPolicy;
import dev.ballast.core.policy.ConfiguredPolicy;
import dev.ballast.core.policy.Trait;
import io.grpc.CallOptions;
import io.grpc.EquivalentAddressGroup;
import java.util.List;
import java.util.function.Function;

/**
 * A gRPC load balancer over one {@link HashBalancer}, of a policy of lb-core's registry that picks
 * by key: a call's key comes from a call option or a request header and
 * decides its subchannel. The balancer is made anew only when the policy config changes. Ring
 * hash names each endpoint by the socket addresses of its resolved address group, exactly as
 * gRPC-java's {@code ring_hash} does.
 */
public final class HashLoadBalancer extends SubchannelLoadBalancer {

  /** The call option carrying a call's key (public as {@code HashLoadBalancerProvider}'s). */
  public static final CallOptions.Key<String> REQUEST_KEY =
      CallOptions.Key.create("ballast.requestKey");

  private final BalancingPolicy<?> policy;
  private final BalancerConfig base;
  private PolicyConfig config;
  private HashBalancer<Backend> balancer;

  private HashLoadBalancer(Helper helper, BalancingPolicy<?> policy, String name,
      BalancerConfig base) {
    super(helper, name);
    this.policy = policy;
    this.base = base.toBuilder().panicPick(false).build();
  }

  /**
   * Creates the load balancer of a policy of lb-core's registry that {@linkplain
   * Trait#PICKS_BY_KEY picks by key} (lb-core's own or a team's), whose configs are {@link
   * PolicyConfig}s: each call's key reaches it from {@link #REQUEST_KEY} or, when its own options
   * are {@link HashConfig}'s, the header its {@code requestHashHeader} names.
   *
   * @param name the name the channel knows the policy by, e.g. {@code ballast_ring_hash}
   * @param base the settings every balancer reads; panic picks are off (READY subchannels only)
   */
  public static HashLoadBalancer of(Helper helper, BalancingPolicy<?> policy, String name,
      BalancerConfig base) {
    return new HashLoadBalancer(helper, policy, name, base);
  }

  /** Returns the channel's config, or the policy's defaults when it gives none. */
  private PolicyConfig config(Object policyConfig) {
    return policyConfig instanceof PolicyConfig p ? p : PolicyConfig.decode(policy, null, base);
  }

  /** Makes the config's balancer; one that does not pick by key is refused, naming it. */
  @SuppressWarnings("unchecked")
  private HashBalancer<Backend> create(PolicyConfig c) {
    ConfiguredPolicy<?> own = c.own();
    if (own.config() instanceof HashConfig h) { // ring entries named as gRPC-java names them
      own = new ConfiguredPolicy<>((BalancingPolicy<HashConfig>) own.policy(),
          h.toBuilder().ringAddresses(this::ringAddresses).build());
    }
    Balancer<Backend> b = own.newBalancer(base);
    if (!(b instanceof HashBalancer<Backend> hb)) {
      throw new IllegalArgumentException("balancer: " + b.name() + " of " + b.getClass()
          .getName() + " (expected: a HashBalancer, as a policy that picks by key makes)");
    }
    return hb;
  }

  @Override
  void validate(Object policyConfig, List<Endpoint> endpoints) {
    // what a set may hold depends on the config too (Maglev's table size)
    PolicyConfig c = config(policyConfig);
    ChildBalancer.of(balancer != null && c.equals(config) ? balancer : create(c))
        .validate(endpoints);
  }

  @Override
  void update(Object policyConfig, List<Endpoint> endpoints,
      Function<Endpoint, Backend> values) {
    PolicyConfig c = config(policyConfig);
    HashBalancer<Backend> target = balancer != null && c.equals(config) ? balancer : create(c);
    target.update(endpoints, values);
    balancer = target;
    config = c;
  }

  /** gRPC-java names a ring entry by the resolved group's first socket address. */
  private List<? extends java.net.SocketAddress> ringAddresses(Endpoint e) {
    EquivalentAddressGroup g = resolvedGroup(e.address());
    return g != null ? g.getAddresses() : RingHash.addressesOf(e);
  }

  @Override
  void clear() {
    balancer = null;
    config = null;
  }

  @Override
  List<Node<Backend>> nodes() {
    return balancer.nodes();
  }

  @Override
  Ticker streamTicker() {
    return null;
  }

  @Override
  SubchannelPicker readyPicker() {
    return new HashPicker(balancer, config, pickFailures);
  }

  /** Returns the balancer, for tests. */
  HashBalancer<Backend> balancer() {
    return balancer;
  }
}
