package dev.ballast.grpc.internal;

import dev.ballast.core.Algorithm;
import dev.ballast.core.BalancerConfig;
import dev.ballast.core.Endpoint;
import dev.ballast.core.HashBalancer;
import dev.ballast.core.HashConfig;
import dev.ballast.core.Node;
import dev.ballast.core.RingHash;
import dev.ballast.core.Ticker;
import dev.ballast.core.ChildBalancer;
import io.grpc.CallOptions;
import io.grpc.EquivalentAddressGroup;
import java.util.List;
import java.util.function.Function;

/**
 * A gRPC load balancer over one lb-core {@link HashBalancer}: a call's key comes from a call
 * option or a request header and decides its subchannel. The balancer is made anew only when the
 * policy config changes. Ring hash names each endpoint by the socket addresses of its resolved
 * address group, exactly as gRPC-java's {@code ring_hash} does.
 */
public final class HashLoadBalancer extends SubchannelLoadBalancer {

  /** The call option carrying a call's key (public as {@code HashLoadBalancerProvider}'s). */
  public static final CallOptions.Key<String> REQUEST_KEY =
      CallOptions.Key.create("ballast.requestKey");

  private final Algorithm algorithm;
  private final BalancerConfig base;
  private PolicyConfig config;
  private HashBalancer<Backend> balancer;

  /**
   * Creates the load balancer.
   *
   * @param base the lb-core settings (random source for calls without a key); panic picks off
   */
  public HashLoadBalancer(Helper helper, Algorithm algorithm, String policyName,
      BalancerConfig base) {
    super(helper, policyName);
    this.algorithm = algorithm;
    this.base = base.toBuilder().panicPick(false).build();
  }

  private PolicyConfig config(Object policyConfig) {
    return policyConfig instanceof PolicyConfig ? (PolicyConfig) policyConfig
        : PolicyConfig.defaults(algorithm);
  }

  @Override
  void validate(Object policyConfig, List<Endpoint> endpoints) {
    // what a set may hold depends on the config too (Maglev's table size)
    PolicyConfig c = config(policyConfig);
    ChildBalancer.of(balancer != null && c.equals(config) ? balancer
        : algorithm.<Backend>create(base, c.hash())).validate(endpoints);
  }

  @Override
  void update(Object policyConfig, List<Endpoint> endpoints,
      Function<Endpoint, Backend> values) {
    PolicyConfig c = config(policyConfig);
    HashBalancer<Backend> target = balancer;
    if (target == null || !c.equals(config)) {
      HashConfig hc = c.hash().toBuilder().ringAddresses(this::ringAddresses).build();
      target = (HashBalancer<Backend>) algorithm.<Backend>create(base, hc);
    }
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
    return new HashPicker(balancer, config.hash().requestHashHeader(), REQUEST_KEY,
        config.hash().loadBound() > 0
            ? BalancerPicker.Feedback.COUNTED : BalancerPicker.Feedback.NONE);
  }

  /** Returns the balancer, for tests. */
  HashBalancer<Backend> balancer() {
    return balancer;
  }
}
