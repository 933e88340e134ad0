package dev.ballast.core.policy;

import dev.ballast.core.Algorithm;
import dev.ballast.core.BalancerConfig;
import dev.ballast.core.HashConfig;
import dev.ballast.core.ChildBalancer;
import dev.ballast.core.load.LoadOptions;
import dev.ballast.core.config.OptionSet;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.function.BiFunction;

/**
 * lb-core's algorithms as policies, registered in the default registry as a user's would be.
 * The key-picking ones take {@link CoreOptions#HASH}, the report-reading ones {@link
 * LoadOptions#WEIGHTED_ROUND_ROBIN}, the others no options of their own (the settings every
 * balancer reads are {@link BalancerConfig}'s).
 */
final class AlgorithmPolicy<C> implements BalancingPolicy<C> {

  private final Algorithm algorithm;
  private final OptionSet<C, ?> options;
  private final Set<Trait> traits;
  private final BiFunction<BalancerConfig, C, ChildBalancer<?>> factory;

  private AlgorithmPolicy(Algorithm algorithm, OptionSet<C, ?> options, Set<Trait> traits,
      BiFunction<BalancerConfig, C, ChildBalancer<?>> factory) {
    this.algorithm = algorithm;
    this.options = options;
    this.traits = Set.copyOf(traits);
    this.factory = factory;
  }

  /** Returns one policy per algorithm, in the enum's order. */
  static List<BalancingPolicy<?>> all() {
    List<BalancingPolicy<?>> all = new ArrayList<>();
    for (Algorithm a : Algorithm.values()) {
      Set<Trait> traits = EnumSet.noneOf(Trait.class);
      if (a.picksByKey()) {
        traits.add(Trait.PICKS_BY_KEY);
        all.add(new AlgorithmPolicy<>(a, CoreOptions.HASH, traits,
            (c, h) -> ChildBalancer.of(a.create(c, h))));
        continue;
      }
      if (a.readsReports()) {
        traits.add(Trait.READS_REPORTS);
      }
      if (a.isLoadAware() || a == Algorithm.SWRR) {
        traits.add(Trait.COUNTS_CALLS); // SWRR lowers a failing node's effective weight
      }
      if (a == Algorithm.P2C_PEAK_EWMA || a == Algorithm.P2C_UTILIZATION) {
        traits.add(Trait.TIMES_CALLS);
      }
      all.add(a.readsReports()
          ? new AlgorithmPolicy<>(a, LoadOptions.WEIGHTED_ROUND_ROBIN, traits,
              (c, w) -> ChildBalancer.of(a.create(c, HashConfig.defaults(), w)))
          : new AlgorithmPolicy<>(a, NO_OPTIONS, traits, (c, v) -> ChildBalancer.of(a.create(c))));
    }
    return all;
  }

  @Override
  public String name() {
    return algorithm.id();
  }

  @Override
  public Set<Trait> traits() {
    return traits;
  }

  @Override
  public OptionSet<C, ?> options() {
    return options;
  }

  @Override
  @SuppressWarnings("unchecked")
  public <T> ChildBalancer<T> newBalancer(BalancerConfig common, C config) {
    return (ChildBalancer<T>) factory.apply(common, config);
  }

  @Override
  public String toString() {
    return name();
  }
}
