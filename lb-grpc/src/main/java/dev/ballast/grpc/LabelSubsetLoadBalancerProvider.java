package dev.ballast.grpc;

import dev.ballast.core.BalancerConfig;
import dev.ballast.core.subset.RequestLabels;
import dev.ballast.grpc.internal.LabelSubsetLoadBalancer;
import dev.ballast.grpc.internal.LabelSubsetPolicyConfig;
import io.grpc.CallOptions;

/**
 * The gRPC policy {@code label_subset}: routes each call to the endpoints whose labels match the
 * call's (lb-core's {@link dev.ballast.core.subset.SubsetSelector}, after Envoy's subset load
 * balancer), and balances inside the subset with a child policy.
 *
 * <p>A call's labels come from {@link #REQUEST_LABELS} if set, else from headers named {@code
 * <headerPrefix><key>} for each selector key ({@code x-lb-zone: b}). Endpoint labels come from
 * {@link EndpointAttributes#LABELS}. Config (service-config JSON):
 *
 * <pre>{@code
 * {"selectors": [["zone"], ["zone", "version"]],   required
 *  "fallbackPolicy": "NO_FALLBACK",                 default; or ANY_ENDPOINT, DEFAULT_SUBSET
 *  "defaultSubset": {"version": "v1"},              required for DEFAULT_SUBSET
 *  "headerPrefix": "x-lb-",                         default
 *  "allowRedundantKeys": false,                     default
 *  "childPolicy": [{"p2c_peak_ewma": {}}]}          default [{"round_robin": {}}] (lb-core's)
 * }</pre>
 *
 * <p>A call whose labels match no subset under NO_FALLBACK fails with UNAVAILABLE naming the
 * labels.
 */
public final class LabelSubsetLoadBalancerProvider extends CompositeLoadBalancerProvider {

  /** The policy name, {@code label_subset}. */
  public static final String POLICY_NAME = LabelSubsetPolicyConfig.NAME;

  /**
   * The call option carrying a call's request labels; when set, headers are not read. Use it
   * as {@code stub.withOption(REQUEST_LABELS, RequestLabels.of("zone", "b"))}, and reuse the
   * {@link RequestLabels} instance: the subset lookup then allocates nothing.
   */
  public static final CallOptions.Key<RequestLabels> REQUEST_LABELS =
      CallOptions.Key.create("ballast.requestLabels");

  /** Creates the provider with lb-core's default settings for the child balancers. */
  public LabelSubsetLoadBalancerProvider() {
    this(BalancerConfig.defaults());
  }

  /** Creates the provider over the given lb-core settings (e.g. a seeded random source). */
  public LabelSubsetLoadBalancerProvider(BalancerConfig base) {
    super(POLICY_NAME, base, (h, b) -> new LabelSubsetLoadBalancer(h, b, REQUEST_LABELS),
        LabelSubsetPolicyConfig::parse);
  }
}
