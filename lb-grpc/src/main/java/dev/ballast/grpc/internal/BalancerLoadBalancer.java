package dev.ballast.grpc.internal;

import dev.ballast.core.Balancer;
import dev.ballast.core.BalancerConfig;
import dev.ballast.core.Endpoint;
import dev.ballast.core.Node;
import dev.ballast.core.Ticker;
import dev.ballast.core.WindowedBalancer;
import dev.ballast.core.ChildBalancer;
import dev.ballast.core.policy.BalancingPolicy;
import dev.ballast.core.policy.Trait;
import dev.ballast.grpc.spi.ReportTarget;
import java.util.List;
import java.util.Set;
import java.util.function.Function;

/**
 * A gRPC load balancer over one lb-core {@link Balancer} of a policy of lb-core's registry.
 * The balancer is made at the first address update from the policy config, and made anew (nodes lose their
 * load state, subchannels are kept) only when the config changes.
 *
 * <p>A balancer that picks from a window of its nodes ({@link WindowedBalancer}: {@code
 * aperture}) gets subchannels for the window's endpoints only, and as its window moves between
 * address updates (the load band, a new coordinate) the move is handed to the synchronization
 * context, which connects the new members and shuts the leavers down.
 */
public final class BalancerLoadBalancer extends SubchannelLoadBalancer implements ReportTarget {

  private final BalancerPicker.Feedback feedback;
  private final Ticker ticker;
  private final BalancingPolicy<?> policy;
  private final BalancerConfig base;
  // run by a windowed balancer in the thread that moved its window: made once, not per move
  private final Runnable windowMoved;
  private PolicyConfig config;
  private Balancer<Backend> balancer;

  private BalancerLoadBalancer(Helper helper, String name, BalancingPolicy<?> policy,
      BalancerConfig base) {
    super(helper, name);
    this.feedback = feedback(policy.traits());
    this.ticker = streamTicker(policy.traits(), base);
    this.policy = policy;
    this.base = base;
    Runnable inContext = this::windowMoved;
    this.windowMoved = () -> helper.getSynchronizationContext().execute(inContext);
  }

  /**
   * Creates the load balancer of a policy of lb-core's registry (lb-core's own or a team's),
   * whose configs are {@link PolicyConfig}s; its traits say what the picker feeds back.
   *
   * @param name the name the channel knows the policy by (its meters' {@code policy} tag and its
   *     status say it), e.g. {@code ballast_weighted_round_robin}
   * @param base the settings the config's fields are applied to (ticker, random source); panic
   *     picks are off (READY subchannels only)
   */
  public static BalancerLoadBalancer of(Helper helper, BalancingPolicy<?> policy, String name,
      BalancerConfig base) {
    return new BalancerLoadBalancer(helper, name, policy, base);
  }

  @Override
  void validate(Object policyConfig, List<Endpoint> endpoints) {
    // which sets a balancer accepts depends on its algorithm only, not on the policy's fields
    ChildBalancer.of(balancer != null ? balancer : config(policyConfig).create(base))
        .validate(endpoints);
  }

  @Override
  void update(Object policyConfig, List<Endpoint> endpoints,
      Function<Endpoint, Backend> values) {
    PolicyConfig c = config(policyConfig);
    Balancer<Backend> target = balancer;
    if (target == null || !c.equals(config)) {
      target = c.create(base);
    }
    target.update(endpoints, values);
    if (target != balancer) {
      listen(balancer, null);
      listen(target, windowMoved);
    }
    balancer = target;
    config = c;
  }

  /**
   * Returns the channel's config, or the policy's defaults when it gives none.
   *
   * @throws IllegalArgumentException for another policy's config (a wiring fault, not data)
   */
  private PolicyConfig config(Object policyConfig) {
    if (policyConfig == null) { // decoded when first needed
      return PolicyConfig.decode(policy, null, base);
    }
    if (!(policyConfig instanceof PolicyConfig p && p.name().equals(policy.name()))) {
      throw new IllegalArgumentException("policy config: " + policyConfig + " (expected: a"
          + " config of " + policy.name() + ")");
    }
    return p;
  }

  private static void listen(Balancer<Backend> b, Runnable listener) {
    if (b instanceof WindowedBalancer) {
      ((WindowedBalancer<Backend>) b).onWindowMoved(listener);
    }
  }

  @Override
  void clear() {
    listen(balancer, null);
    balancer = null;
    config = null;
  }

  @Override
  List<Node<Backend>> window() {
    return balancer instanceof WindowedBalancer
        ? ((WindowedBalancer<Backend>) balancer).window() : null;
  }

  @Override
  List<Node<Backend>> nodes() {
    return balancer.nodes();
  }

  @Override
  Ticker streamTicker() {
    return ticker;
  }

  /** A policy that {@linkplain Trait#TIMES_CALLS times calls} gets its streams timed. */
  static Ticker streamTicker(Set<Trait> traits, BalancerConfig base) {
    return traits.contains(Trait.TIMES_CALLS) ? base.ticker() : null;
  }

  /**
   * What picks need back from their streams, by the policy's traits: latencies for one that
   * {@linkplain Trait#TIMES_CALLS times calls}, ends for one that {@linkplain Trait#COUNTS_CALLS
   * counts them}, else nothing.
   */
  static BalancerPicker.Feedback feedback(Set<Trait> traits) {
    return traits.contains(Trait.TIMES_CALLS) ? BalancerPicker.Feedback.TIMED
        : traits.contains(Trait.COUNTS_CALLS) ? BalancerPicker.Feedback.COUNTED
        : BalancerPicker.Feedback.NONE;
  }

  @Override
  SubchannelPicker readyPicker() {
    return new BalancerPicker(balancer, feedback, metrics, pickFailures);
  }

  @Override
  public void forEachNode(java.util.function.BiConsumer<Subchannel, Node<?>> action) {
    for (Backend b : backends().values()) {
      if (b.node() != null && b.subchannel != null) {
        action.accept(b.subchannel, b.node());
      }
    }
  }

  @Override
  public Object ownConfig(Object loadBalancingPolicyConfig) {
    return loadBalancingPolicyConfig instanceof PolicyConfig p ? p.own().config() : null;
  }

  /** Returns the balancer, for tests. */
  Balancer<Backend> balancer() {
    return balancer;
  }
}
