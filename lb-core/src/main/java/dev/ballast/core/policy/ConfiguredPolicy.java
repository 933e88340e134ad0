package dev.ballast.core.policy;

import dev.ballast.core.BalancerConfig;
import dev.ballast.core.ChildBalancer;
import dev.ballast.core.HashConfig;
import dev.ballast.core.config.Names;
import dev.ballast.core.config.OptionException;
import dev.ballast.core.config.OptionSet;
import dev.ballast.core.load.LoadOptions;
import dev.ballast.core.load.WeightedRoundRobinConfig;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Stream;

/**
 * A policy with its config decoded once, ready to make balancers: what a front end holds for a
 * client or a channel. Immutable.
 *
 * @param policy the policy
 * @param config its config
 * @param <C> the policy's config type
 */
public record ConfiguredPolicy<C>(BalancingPolicy<C> policy, C config) {

  /** Checks both parts are given. */
  public ConfiguredPolicy {
    Objects.requireNonNull(policy, "policy");
    Objects.requireNonNull(config, "config");
  }

  /**
   * Resolves a policy by name in the default registry and decodes its options.
   *
   * @param options the policy's own options by name; null or empty for its defaults
   * @throws OptionException naming {@code balancer} for an unknown name, or the bad option (and
   *     the nearest of the policy's own) for a bad one
   */
  public static ConfiguredPolicy<?> of(String name, Map<String, ?> options) {
    return decode(named(name), options);
  }

  /**
   * Returns the policy of a name in the default registry.
   *
   * @throws OptionException naming {@code balancer}, the unknown name and the nearest known one
   */
  public static BalancingPolicy<?> named(String name) {
    try {
      return PolicyRegistry.defaultRegistry().get(name);
    } catch (IllegalArgumentException e) {
      throw new OptionException("balancer", e.getMessage(), e);
    }
  }

  /**
   * Returns whether a client takes the policy's options at its own level rather than as the
   * policy's ({@code policy.*}): a policy with no options, or whose options are one of a
   * client's sets ({@link CoreOptions#HASH}, {@link LoadOptions#WEIGHTED_ROUND_ROBIN}), as
   * lb-core's algorithms are.
   */
  public static boolean optionsAtClientLevel(BalancingPolicy<?> policy) {
    return clientConfig(policy, HashConfig.defaults(), WeightedRoundRobinConfig.defaults())
        != null;
  }

  /** The config a client's own options give a policy, or null if its options are its own. */
  private static Object clientConfig(BalancingPolicy<?> policy, HashConfig hash,
      WeightedRoundRobinConfig reports) {
    OptionSet<?, ?> o = policy.options();
    return o == CoreOptions.HASH ? hash : o == LoadOptions.WEIGHTED_ROUND_ROBIN ? reports
        : o.options().isEmpty() ? o.defaults() : null;
  }

  /**
   * Configures a policy as a client gives it: its own options ({@code policy.*}) decoded by its
   * option set, or, for one whose options are set at the client's level ({@link
   * #optionsAtClientLevel}), the client's hash or load-report settings.
   *
   * @param own the policy's own options by name; null or empty for none
   * @param hash the client's hash settings
   * @param reports the client's load-report settings
   * @throws OptionException naming {@code policy.<option>}: a bad one, or any given to a policy
   *     whose options are set at the client's level
   */
  @SuppressWarnings("unchecked")
  public static ConfiguredPolicy<?> forClient(BalancingPolicy<?> policy, Map<String, ?> own,
      HashConfig hash, WeightedRoundRobinConfig reports) {
    Object config = clientConfig(policy, hash, reports);
    if (config == null) {
      try {
        return decode(policy, own);
      } catch (OptionException e) {
        throw new OptionException("policy." + e.option(), clientOption(policy, e.option())
            ? "unknown " + policy.name() + " option, but a client's (expected: among the"
                + " client's options, not under policy)"
            : e.problem(), e);
      }
    }
    if (own != null && !own.isEmpty()) {
      throw new OptionException("policy." + own.keySet().iterator().next(), "unknown "
          + policy.name() + " option under policy" + (policy.options().options().isEmpty()
          ? " (expected: none, since it takes no options of its own)"
          : " (expected: its options at the client's level, e.g. minRingSize, not under policy)"),
          null);
    }
    return new ConfiguredPolicy<>((BalancingPolicy<Object>) policy, config);
  }

  /**
   * Whether a name the policy does not take names a client's option or group of options
   * ({@code slowStart.window}, {@code slowStart}, {@code minRingSize}), in any of its forms.
   */
  private static boolean clientOption(BalancingPolicy<?> policy, String name) {
    if (policy.options().find(name) != null) {
      return false;
    }
    String group = Names.normalize(name) + ".";
    return Stream.of(CoreOptions.BALANCER, CoreOptions.HASH, LoadOptions.WEIGHTED_ROUND_ROBIN)
        .flatMap(set -> set.names().stream())
        .anyMatch(known -> Names.same(known, name) || Names.normalize(known).startsWith(group));
  }

  /** Decodes a policy's options; null or empty gives its defaults. */
  public static <C> ConfiguredPolicy<C> decode(BalancingPolicy<C> policy, Map<String, ?> options) {
    return new ConfiguredPolicy<>(policy, policy.options().decode(options));
  }

  /** Creates an empty balancer of the policy with this config. */
  public <T> ChildBalancer<T> newBalancer(BalancerConfig common) {
    return Objects.requireNonNull(policy.newBalancer(Objects.requireNonNull(common, "common"),
        config), () -> "policy " + policy.name() + ": newBalancer returned null (expected: a"
        + " balancer, e.g. a DistributorBalancer)");
  }

  /** Returns the policy's options as they are set, by name ({@code {}} for the defaults). */
  public Map<String, Object> options() {
    return policy.options().encode(config);
  }
}
