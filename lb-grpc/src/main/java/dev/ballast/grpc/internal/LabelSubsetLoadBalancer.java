package dev.ballast.grpc.internal;

import dev.ballast.core.BalancerConfig;
import dev.ballast.core.Endpoint;
import dev.ballast.core.Node;
import dev.ballast.core.Ticker;
import dev.ballast.core.ChildBalancer;
import dev.ballast.core.locality.LocalityBalancer;
import dev.ballast.core.subset.RequestLabels;
import dev.ballast.core.subset.SubsetSelector;
import io.grpc.CallOptions;
import java.util.List;
import java.util.function.Function;

/**
 * {@code label_subset}: lb-core's {@link SubsetSelector} over one subchannel per address, with
 * a child algorithm balancing inside each subset, or zones over one (a {@code locality} child). The selector is made at the first address
 * update and made anew only when the config changes.
 */
public final class LabelSubsetLoadBalancer extends SubchannelLoadBalancer {

  private final BalancerConfig base;
  private final CallOptions.Key<RequestLabels> labelsKey;
  private LabelSubsetPolicyConfig config;
  private SubsetSelector<Backend> selector;
  private RequestLabelReader reader;

  /**
   * Creates the load balancer.
   *
   * @param labelsKey the call option whose labels override the request headers
   */
  public LabelSubsetLoadBalancer(Helper helper, BalancerConfig base,
      CallOptions.Key<RequestLabels> labelsKey) {
    super(helper, LabelSubsetPolicyConfig.NAME);
    this.base = base;
    this.labelsKey = labelsKey;
  }

  @Override
  void validate(Object policyConfig, List<Endpoint> endpoints) {
    LabelSubsetPolicyConfig c = config(policyConfig);
    // Every subset, and the fallback set, is part of the whole set, with a weight sum no larger
    // and a weight gcd no smaller; so a whole set the child algorithm accepts gives subsets it
    // accepts too (no duplicate, a weight sum in range, a VNSWRR ring Σ weight/gcd in range).
    ChildBalancer.of(c.child().create(base)).validate(endpoints);
  }

  private static LabelSubsetPolicyConfig config(Object policyConfig) {
    if (!(policyConfig instanceof LabelSubsetPolicyConfig)) {
      throw new IllegalArgumentException(LabelSubsetPolicyConfig.NAME
          + ": no config (expected: a service config with at least \"selectors\")");
    }
    return (LabelSubsetPolicyConfig) policyConfig;
  }

  @Override
  void update(Object policyConfig, List<Endpoint> endpoints, Function<Endpoint, Backend> values) {
    LabelSubsetPolicyConfig c = config(policyConfig);
    SubsetSelector<Backend> target = selector;
    RequestLabelReader nextReader = reader;
    if (target == null || !c.equals(config)) {
      // made before any subchannel: a header name gRPC refuses fails here, changing nothing
      nextReader = new RequestLabelReader(c.subset().selectors(), c.subset().headerPrefix(),
          labelsKey);
      PolicyConfig child = c.child();
      SubsetSelector.Builder<Backend> b = c.subset().applyTo(SubsetSelector.<Backend>builder())
          .config(child.balancerOver(base)).balancerFactory(() -> child.create(base));
      if (c.locality() != null) { // subsets over zones
        b.balancerFactory(() -> LocalityBalancer.<Backend>builder()
            .config(child.balancerOver(base)).balancerFactory(() -> child.create(base))
            .locality(c.locality()).build());
      }
      target = b.build();
    }
    target.update(endpoints, values);
    selector = target;
    reader = nextReader;
    config = c;
  }

  @Override
  Object balancer() {
    return selector;
  }

  @Override
  void clear() {
    selector = null;
    reader = null;
    config = null;
  }

  @Override
  List<Node<Backend>> nodes() {
    return selector.nodes();
  }

  @Override
  Ticker streamTicker() {
    return BalancerLoadBalancer.streamTicker(config.child().traits(), base);
  }

  @Override
  SubchannelPicker readyPicker() {
    return new LabelSubsetPicker(selector, reader,
        BalancerLoadBalancer.feedback(config.child().traits()), pickFailures);
  }

  /** Returns the selector, for tests. */
  SubsetSelector<Backend> selector() {
    return selector;
  }
}
