package dev.ballast.grpc.internal;

import dev.ballast.core.Algorithm;
import dev.ballast.core.Balancer;
import dev.ballast.core.BalancerConfig;
import dev.ballast.core.Endpoint;
import dev.ballast.core.Node;
import dev.ballast.core.Ticker;
import dev.ballast.core.WindowedBalancer;
import dev.ballast.core.ChildBalancer;
import dev.ballast.core.policy.BalancingPolicy;
import dev.ballast.core.policy.ConfiguredPolicy;
import dev.ballast.core.policy.Trait;
import dev.ballast.grpc.spi.ReportTarget;
import java.util.List;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * A gRPC load balancer over one lb-core {@link Balancer} of a given algorithm or registered
 * policy. The balancer is
 * made at the first address update from the policy config, and made anew (nodes lose their
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
  // the config used when the channel gives none (made when first needed), which configs are
  // this policy's, and how a config makes a balancer
  private final Supplier<Object> defaults;
  private final Predicate<Object> ours;
  private final Function<Object, Balancer<Backend>> make;
  // run by a windowed balancer in the thread that moved its window: made once, not per move
  private final Runnable windowMoved;
  private Object config;
  private Balancer<Backend> balancer;

  /**
   * Creates the load balancer over one of lb-core's algorithms.
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
    this(helper, policyName, ConfiguredPolicy.named(algorithm.id()).traits(), base,
        () -> PolicyConfig.defaults(algorithm),
        c -> c instanceof PolicyConfig p && p.name().equals(algorithm.id()),
        c -> ((PolicyConfig) c).create(base));
  }

  private BalancerLoadBalancer(Helper helper, String name, Set<Trait> traits,
      BalancerConfig base, Supplier<Object> defaults, Predicate<Object> ours,
      Function<Object, Balancer<Backend>> make) {
    super(helper, name);
    this.feedback = feedback(traits);
    this.ticker = streamTicker(traits, base);
    this.defaults = defaults;
    this.ours = ours;
    this.make = make;
    Runnable inContext = this::windowMoved;
    this.windowMoved = () -> helper.getSynchronizationContext().execute(inContext);
  }

  /**
   * Creates the load balancer over a registered policy, whose configs are {@link
   * ConfiguredPolicy}s; its traits say what the picker feeds back.
   *
   * @param base the settings every balancer reads; panic picks are off (READY subchannels only)
   */
  public static BalancerLoadBalancer of(Helper helper, BalancingPolicy<?> policy,
      BalancerConfig base) {
    BalancerConfig common = base.toBuilder().panicPick(false).build();
    return new BalancerLoadBalancer(helper, policy.name(), policy.traits(), common,
        () -> ConfiguredPolicy.decode(policy, null),
        c -> c instanceof ConfiguredPolicy<?> cp && cp.policy() == policy,
        c -> ((ConfiguredPolicy<?>) c).newBalancer(common));
  }

  @Override
  void validate(Object policyConfig, List<Endpoint> endpoints) {
    // which sets a balancer accepts depends on its algorithm only, not on the policy's fields
    ChildBalancer.of(balancer != null ? balancer : make.apply(config(policyConfig)))
        .validate(endpoints);
  }

  @Override
  void update(Object policyConfig, List<Endpoint> endpoints,
      Function<Endpoint, Backend> values) {
    Object c = config(policyConfig);
    Balancer<Backend> target = balancer;
    if (target == null || !c.equals(config)) {
      target = make.apply(c);
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
  private Object config(Object policyConfig) {
    if (policyConfig == null) {
      return defaults.get();
    }
    if (!ours.test(policyConfig)) {
      throw new IllegalArgumentException("policy config: " + policyConfig + " (expected: a"
          + " config of this policy)");
    }
    return policyConfig;
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
    return new BalancerPicker(balancer, feedback, metrics.queuedPicks());
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
    return loadBalancingPolicyConfig instanceof PolicyConfig p ? p.own().config()
        : loadBalancingPolicyConfig instanceof ConfiguredPolicy<?> c ? c.config() : null;
  }

  /** Returns the balancer, for tests. */
  Balancer<Backend> balancer() {
    return balancer;
  }
}
