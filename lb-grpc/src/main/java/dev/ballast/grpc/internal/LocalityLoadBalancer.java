package dev.ballast.grpc.internal;

import dev.ballast.core.BalancerConfig;
import dev.ballast.core.Endpoint;
import dev.ballast.core.Node;
import dev.ballast.core.Ticker;
import dev.ballast.core.ChildBalancer;
import dev.ballast.core.locality.LocalityBalancer;
import dev.ballast.core.log.StateChangeLog;
import dev.ballast.core.policy.Trait;
import io.grpc.LoadBalancer.SubchannelPicker;
import java.util.List;
import java.util.function.Function;

/**
 * {@code locality}: lb-core's {@link LocalityBalancer} (priorities, localities, zone-aware
 * routing) over one subchannel per address, with a child algorithm balancing inside each
 * locality. The balancer is made at the first address update and made anew only when the config
 * changes.
 */
public final class LocalityLoadBalancer extends SubchannelLoadBalancer {

  private final BalancerConfig base;
  private LocalityPolicyConfig config;
  private LocalityBalancer<Backend> balancer;
  private final StateChangeLog states; // panics and zone routing's changes, as lb-netty logs them

  /**
   * Creates the load balancer.
   *
   * @param base the lb-core settings the child's config is applied to (ticker, random source)
   */
  public LocalityLoadBalancer(Helper helper, BalancerConfig base) {
    super(helper, LocalityPolicyConfig.NAME);
    this.base = base;
    this.states = StateChangeLog.of("channel " + helper.getAuthority(), base.ticker());
  }

  private LocalityPolicyConfig config(Object policyConfig) {
    return policyConfig instanceof LocalityPolicyConfig c ? c
        : (LocalityPolicyConfig) LocalityPolicyConfig.parse(null, base).getConfig();
  }

  @Override
  void validate(Object policyConfig, List<Endpoint> endpoints) {
    // every locality's part is a part of the whole set: a whole set the child accepts will do
    ChildBalancer.of(config(policyConfig).child().create(base)).validate(endpoints);
  }

  @Override
  void update(Object policyConfig, List<Endpoint> endpoints, Function<Endpoint, Backend> values) {
    LocalityPolicyConfig c = config(policyConfig);
    LocalityBalancer<Backend> target = balancer;
    if (target == null || !c.equals(config)) {
      PolicyConfig child = c.child(); // with its own options (a key-picking one's ring, table)
      target = LocalityBalancer.<Backend>builder().config(child.balancerOver(base))
          .locality(c.locality()).balancerFactory(() -> child.create(base)).build();
      target.stateLog(states);
    }
    target.update(endpoints, values);
    balancer = target;
    config = c;
  }

  @Override
  Object balancer() {
    return balancer;
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
    return BalancerLoadBalancer.streamTicker(config.child().traits(), base);
  }

  @Override
  SubchannelPicker readyPicker() {
    PolicyConfig child = config.child();
    if (child.traits().contains(Trait.PICKS_BY_KEY)) { // the key reaches the locality's ring
      return new HashPicker(balancer, child, pickFailures);
    }
    return new BalancerPicker(balancer, BalancerLoadBalancer.feedback(child.traits()), metrics,
        pickFailures);
  }
}
