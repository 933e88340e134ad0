package dev.ballast.grpc.internal;

import dev.ballast.core.Algorithm;
import dev.ballast.core.Balancer;
import dev.ballast.core.BalancerConfig;
import dev.ballast.core.Endpoint;
import dev.ballast.core.Node;
import dev.ballast.core.Ticker;
import dev.ballast.core.composite.ChildBalancer;
import java.util.List;
import java.util.function.Function;

/**
 * A gRPC load balancer over one lb-core {@link Balancer} of a given algorithm. The balancer is
 * made at the first address update from the policy config, and made anew (nodes lose their
 * load state, subchannels are kept) only when the config changes.
 */
public final class BalancerLoadBalancer extends SubchannelLoadBalancer {

  private final Algorithm algorithm;
  private final BalancerConfig base;
  private final BalancerPicker.Feedback feedback;
  private PolicyConfig config;
  private Balancer<Backend> balancer;

  /**
   * Creates the load balancer.
   *
   * @param base the lb-core settings the policy config is applied to (ticker, random source)
   */
  public BalancerLoadBalancer(Helper helper, Algorithm algorithm, BalancerConfig base) {
    this(helper, algorithm, base, algorithm.id());
  }

  /**
   * Creates the load balancer of a policy registered under a name of its own (its meters'
   * {@code policy} tag and its status say it), e.g. {@code ballast_weighted_round_robin}.
   *
   * @param base the lb-core settings the policy config is applied to (ticker, random source)
   */
  public BalancerLoadBalancer(Helper helper, Algorithm algorithm, BalancerConfig base,
      String policyName) {
    super(helper, policyName);
    this.algorithm = algorithm;
    this.base = base;
    this.feedback = feedback(algorithm);
  }

  @Override
  void validate(Object policyConfig, List<Endpoint> endpoints) {
    // which sets a balancer accepts depends on its algorithm only, not on the policy's fields
    ChildBalancer.of(balancer != null ? balancer : algorithm.<Backend>create(base))
        .validate(endpoints);
  }

  @Override
  void update(Object policyConfig, List<Endpoint> endpoints,
      Function<Endpoint, Backend> values) {
    PolicyConfig c = policyConfig instanceof PolicyConfig
        ? (PolicyConfig) policyConfig
        : PolicyConfig.defaults(algorithm);
    Balancer<Backend> target = balancer;
    if (target == null || !c.equals(config)) {
      target = c.create(base);
    }
    target.update(endpoints, values);
    balancer = target;
    config = c;
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
    return streamTicker(algorithm, base);
  }

  /** Only peak EWMA reads latencies; the other algorithms' streams are not timed. */
  static Ticker streamTicker(Algorithm algorithm, BalancerConfig base) {
    return algorithm == Algorithm.P2C_PEAK_EWMA || algorithm == Algorithm.P2C_UTILIZATION
        ? base.ticker() : null;
  }

  /**
   * What picks need back from their streams: peak EWMA times them; least_loaded needs pending
   * counts, and SWRR lowers a failing node's effective weight (nginx max_fails); the others need
   * nothing.
   */
  static BalancerPicker.Feedback feedback(Algorithm algorithm) {
    if (algorithm == Algorithm.P2C_PEAK_EWMA || algorithm == Algorithm.P2C_UTILIZATION) {
      return BalancerPicker.Feedback.TIMED;
    }
    return algorithm.isLoadAware() || algorithm == Algorithm.SWRR
        ? BalancerPicker.Feedback.COUNTED : BalancerPicker.Feedback.NONE;
  }

  @Override
  SubchannelPicker readyPicker() {
    return new BalancerPicker(balancer, feedback, metrics.queuedPicks());
  }

  /**
   * Gives each subchannel and the node that balances it (synchronization context only); for a
   * policy that feeds the nodes with what the subchannels' servers report.
   */
  public void forEachNode(java.util.function.BiConsumer<Subchannel, Node<?>> action) {
    for (Backend b : backends().values()) {
      if (b.node() != null) {
        action.accept(b.subchannel, b.node());
      }
    }
  }

  /** Returns the balancer, for tests. */
  Balancer<Backend> balancer() {
    return balancer;
  }
}
