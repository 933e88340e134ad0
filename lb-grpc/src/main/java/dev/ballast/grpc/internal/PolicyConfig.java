package dev.ballast.grpc.internal;

import dev.ballast.core.BalancerConfig;
import dev.ballast.core.HashConfig;
import dev.ballast.core.policy.CoreOptions;
import dev.ballast.core.config.Names;
import dev.ballast.core.config.OptionException;
import dev.ballast.core.config.OptionSet;
import dev.ballast.core.policy.BalancingPolicy;
import dev.ballast.core.policy.ConfiguredPolicy;
import dev.ballast.core.policy.Trait;
import io.grpc.NameResolver.ConfigOrError;
import io.grpc.Status;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * The parsed config of a gRPC policy over a policy of lb-core's registry, found by its name: the
 * policy's own options ({@link BalancingPolicy#options()}: gRPC's {@code weighted_round_robin}
 * fields for those that read load reports) beside lb-core's {@link CoreOptions#BALANCER} options
 * in one JSON object, or its own only for a policy that picks by key ({@link CoreOptions#HASH}),
 * each decoded by lb-core's codec, so that a field has the name, default and error it has in
 * every front end. Two configs are equal when their options are, so that a re-resolution with the
 * same config keeps the balancer and its load state.
 *
 * @param name the policy's canonical name in lb-core's registry
 * @param options the options as lb-core writes them back (non-default ones only)
 * @param balancer the balancer options; panic picks are never on (a gRPC picker hands out READY
 *     subchannels only)
 * @param own the policy with its own options decoded
 */
public record PolicyConfig(String name, Map<String, Object> options,
    BalancerConfig balancer, ConfiguredPolicy<?> own) {

  /** The balancer options a gRPC policy takes: all but {@code panicPick}. */
  public static final OptionSet<BalancerConfig, BalancerConfig.Builder> BALANCER_OPTIONS =
      CoreOptions.BALANCER.without("panicPick");

  /**
   * Parses the JSON config of a policy of lb-core's registry (a user's own as well) over a
   * provider's base settings; a bad field comes back as an error naming it, never thrown.
   *
   * @param policyName the name the config is given under, for the error
   */
  public static ConfigOrError parse(BalancingPolicy<?> policy, String policyName,
      BalancerConfig base, Map<String, ?> json) {
    try {
      return ConfigOrError.fromConfig(decode(policy, json, base));
    } catch (RuntimeException | Error e) { // a bad config is an error, never a crash
      return ConfigOrError.fromError(Status.INTERNAL.withDescription(policyName + " config: "
          + (e instanceof IllegalArgumentException ? e.getMessage() : e.toString())).withCause(e));
    }
  }

  /**
   * Decodes the JSON config of a policy of lb-core's registry: its own options, and the
   * balancer options over {@code base} (a field given replaces base's value). A field that
   * neither takes is named with the nearest of the policy's own, else of the balancer's.
   *
   * @throws dev.ballast.core.config.OptionException naming the bad field
   */
  public static PolicyConfig decode(BalancingPolicy<?> policy, Map<String, ?> json,
      BalancerConfig base) {
    OptionSet<?, ?> ownOptions = policy.options();
    // lb-core's key balancers take their hash options only, as gRPC's ring_hash takes its own;
    // every other policy takes the balancer options (maxEffort, ...) beside its own
    boolean keyed = ownOptions == CoreOptions.HASH;
    Map<String, Object> mine = new LinkedHashMap<>();
    Map<String, Object> rest = new LinkedHashMap<>();
    // top-level keys only: each part's decode bounds its depth before it reads it
    (json == null ? Map.<String, Object>of() : json).forEach((k, v) -> {
      if (!keyed && ownOptions.find(k) == null && !balancerOption(k)
          && Names.nearest(k, ownOptions.names()) != null) { // a misspelling of the policy's own
        throw new OptionException(k, ownOptions.unknownKey(k), null);
      }
      (keyed || ownOptions.find(k) != null ? mine : rest).put(k, v);
    });
    ConfiguredPolicy<?> own = ConfiguredPolicy.decode(policy, mine);
    BalancerConfig b = BALANCER_OPTIONS.decode(base.toBuilder().panicPick(false), rest);
    Map<String, Object> options = new LinkedHashMap<>(BALANCER_OPTIONS.encode(b));
    options.putAll(own.options());
    return new PolicyConfig(policy.name(), Map.copyOf(options), b, own);
  }

  private static boolean balancerOption(String key) {
    String k = Names.normalize(key);
    return BALANCER_OPTIONS.names().stream().map(Names::normalize)
        .anyMatch(n -> n.equals(k) || n.startsWith(k + "."));
  }

  /** Returns what the policy reads ({@link BalancingPolicy#traits()}). */
  public Set<Trait> traits() {
    return own.policy().traits();
  }

  /** Returns the key-picking options, the defaults for a policy whose own options are others. */
  public HashConfig hash() {
    return own.config() instanceof HashConfig h ? h : HashConfig.defaults();
  }

  /**
   * Creates a balancer of this config's policy, with its own options, over {@code base}'s time
   * and random sources.
   */
  public <T> dev.ballast.core.Balancer<T> create(BalancerConfig base) {
    return own.newBalancer(balancerOver(base));
  }

  /** Returns the balancer options over {@code base}'s time and random sources, panic picks off. */
  public BalancerConfig balancerOver(BalancerConfig base) {
    return balancer.toBuilder().ticker(base.ticker()).random(base.random()).panicPick(false)
        .build();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof PolicyConfig p && name.equals(p.name) && options.equals(p.options);
  }

  @Override
  public int hashCode() {
    return name.hashCode() * 31 + options.hashCode();
  }

  @Override
  public String toString() {
    return name + options;
  }
}
