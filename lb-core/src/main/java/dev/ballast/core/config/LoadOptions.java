package dev.ballast.core.config;

import dev.ballast.core.load.WeightedRoundRobinConfig;

/**
 * Moved to {@link dev.ballast.core.load.LoadOptions}, beside the config it names, so that this
 * package depends on nothing above it; this alias lasts one version.
 *
 * @deprecated use {@link dev.ballast.core.load.LoadOptions}
 */
@Deprecated(since = "0.1.0", forRemoval = true)
public final class LoadOptions {

  private LoadOptions() {}

  /** See {@link dev.ballast.core.load.LoadOptions#WEIGHTED_ROUND_ROBIN}. */
  public static final OptionSet<WeightedRoundRobinConfig, WeightedRoundRobinConfig.Builder>
      WEIGHTED_ROUND_ROBIN = dev.ballast.core.load.LoadOptions.WEIGHTED_ROUND_ROBIN;
}
