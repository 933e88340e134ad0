package dev.ballast.core.config;

import dev.ballast.core.Algorithm;
import dev.ballast.core.BalancerConfig;
import dev.ballast.core.Endpoint;
import dev.ballast.core.HashConfig;
import dev.ballast.core.KeyHash;
import dev.ballast.core.locality.LocalityConfig;
import dev.ballast.core.subset.FallbackPolicy;
import dev.ballast.core.subset.SubsetConfig;
import java.util.List;
import java.util.Map;

/**
 * Moved to {@link dev.ballast.core.policy.CoreOptions}, so that this package (options and their
 * codec) depends on nothing above it; this alias lasts one version and names the same objects.
 *
 * @deprecated use {@link dev.ballast.core.policy.CoreOptions}
 */
@Deprecated(since = "0.1.0", forRemoval = true)
public final class CoreOptions {

  private CoreOptions() {}

  /** See {@link dev.ballast.core.policy.CoreOptions#ALGORITHM}. */
  public static final ValueType<Algorithm> ALGORITHM =
      dev.ballast.core.policy.CoreOptions.ALGORITHM;

  /** See {@link dev.ballast.core.policy.CoreOptions#POLICY}. */
  public static final ValueType<String> POLICY =
      dev.ballast.core.policy.CoreOptions.POLICY;

  /** See {@link dev.ballast.core.policy.CoreOptions#POLICY_OPTIONS}. */
  public static final ValueType<Map<String, Object>> POLICY_OPTIONS =
      dev.ballast.core.policy.CoreOptions.POLICY_OPTIONS;

  /** See {@link dev.ballast.core.policy.CoreOptions#ENDPOINTS}. */
  public static final ValueType<List<Endpoint>> ENDPOINTS =
      dev.ballast.core.policy.CoreOptions.ENDPOINTS;

  /** See {@link dev.ballast.core.policy.CoreOptions#KEY_HASH}. */
  public static final ValueType<KeyHash> KEY_HASH =
      dev.ballast.core.policy.CoreOptions.KEY_HASH;

  /** See {@link dev.ballast.core.policy.CoreOptions#BALANCER}. */
  public static final OptionSet<BalancerConfig, BalancerConfig.Builder> BALANCER =
      dev.ballast.core.policy.CoreOptions.BALANCER;

  /** See {@link dev.ballast.core.policy.CoreOptions#HASH}. */
  public static final OptionSet<HashConfig, HashConfig.Builder> HASH =
      dev.ballast.core.policy.CoreOptions.HASH;

  /** See {@link dev.ballast.core.policy.CoreOptions#FALLBACK_POLICY}. */
  public static final ValueType<FallbackPolicy> FALLBACK_POLICY =
      dev.ballast.core.policy.CoreOptions.FALLBACK_POLICY;

  /** See {@link dev.ballast.core.policy.CoreOptions#SUBSET}. */
  public static final OptionSet<SubsetConfig, SubsetConfig.Builder> SUBSET =
      dev.ballast.core.policy.CoreOptions.SUBSET;

  /** See {@link dev.ballast.core.policy.CoreOptions#ZONE_SHARES}. */
  public static final ValueType<Map<String, Double>> ZONE_SHARES =
      dev.ballast.core.policy.CoreOptions.ZONE_SHARES;

  /** See {@link dev.ballast.core.policy.CoreOptions#LOCALITY}. */
  public static final OptionSet<LocalityConfig, LocalityConfig.Builder> LOCALITY =
      dev.ballast.core.policy.CoreOptions.LOCALITY;
}
