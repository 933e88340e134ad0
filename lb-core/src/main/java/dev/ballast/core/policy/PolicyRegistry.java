package dev.ballast.core.policy;

import dev.ballast.core.config.Names;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;

/**
 * The balancing policies by name, which every front end resolves a {@code balancer} name
 * through. The {@linkplain #defaultRegistry() default registry} holds lb-core's algorithms,
 * registered by {@link #register} as a user's policy would be, then every policy found by
 * {@link ServiceLoader} ({@code META-INF/services/dev.ballast.core.policy.BalancingPolicy}).
 * Names match case-insensitively with {@code -} and {@code _} alike. Thread-safe.
 */
public final class PolicyRegistry {

  private static final System.Logger LOG = System.getLogger(PolicyRegistry.class.getName());

  private static final PolicyRegistry DEFAULT = loadDefault();

  // normalized name or alias -> policy; guarded by this
  private final Map<String, BalancingPolicy<?>> byName = new LinkedHashMap<>();
  private final List<BalancingPolicy<?>> policies = new ArrayList<>();

  /**
   * The policy a client balances with when none is named, in every front end: {@code
   * p2c_peak_ewma} (P2C over peak-EWMA latency, Finagle's default).
   */
  public static final String DEFAULT_POLICY = "p2c_peak_ewma";

  /** Creates an empty registry (for tests, or a front end that wants its own set). */
  public PolicyRegistry() {}

  /** Returns the process-wide registry: lb-core's algorithms and the service-loaded policies. */
  public static PolicyRegistry defaultRegistry() {
    return DEFAULT;
  }

  private static PolicyRegistry loadDefault() {
    PolicyRegistry r = new PolicyRegistry();
    AlgorithmPolicy.all().forEach(r::register);
    ServiceLoader<BalancingPolicy> loader =
        ServiceLoader.load(BalancingPolicy.class, PolicyRegistry.class.getClassLoader());
    var it = loader.iterator();
    while (true) {
      try {
        if (!it.hasNext()) {
          break;
        }
        r.register(it.next());
      } catch (ServiceConfigurationError | RuntimeException e) {
        // one broken plugin must not take the built-in policies down with it
        LOG.log(System.Logger.Level.WARNING, "balancing policy not registered: " + e, e);
      }
    }
    return r;
  }

  /**
   * Adds a policy under its name and aliases.
   *
   * @throws IllegalArgumentException if a name or alias is blank or already taken (naming the
   *     policy that holds it); the registry is then unchanged
   */
  public synchronized PolicyRegistry register(BalancingPolicy<?> policy) {
    Objects.requireNonNull(policy, "policy");
    List<String> names = new ArrayList<>();
    names.add(policy.name());
    names.addAll(policy.aliases());
    for (String n : names) {
      if (n == null || Names.normalize(n).isEmpty()) {
        throw new IllegalArgumentException("policy name: \"" + n + "\" of "
            + policy.getClass().getName() + " (expected: a name such as my_policy)");
      }
      BalancingPolicy<?> taken = byName.get(Names.normalize(n));
      if (taken != null) {
        throw new IllegalArgumentException("policy name: " + n + " of "
            + policy.getClass().getName() + " (expected: a name not taken; "
            + taken.name() + " of " + taken.getClass().getName() + " has it)");
      }
    }
    names.forEach(n -> byName.put(Names.normalize(n), policy));
    policies.add(policy);
    return this;
  }

  /** Returns the policy of a name or alias, if registered. */
  public synchronized Optional<BalancingPolicy<?>> find(String name) {
    return Optional.ofNullable(byName.get(Names.normalize(Objects.requireNonNull(name, "name"))));
  }

  /**
   * Returns the policy of a name or alias.
   *
   * @throws IllegalArgumentException naming the unknown name, the nearest known one and all
   */
  public BalancingPolicy<?> get(String name) {
    return find(name).orElseThrow(() -> {
      String unknown = Names.unknown("balancer", name, names());
      // a team's policy missing at run time reads as a typo: say where one comes from
      return new IllegalArgumentException(unknown.substring("balancer: ".length(),
          unknown.length() - 1) + "; a team's policy registers from its jar's META-INF/services/"
          + BalancingPolicy.class.getName() + " entry, or by PolicyRegistry.register)");
    });
  }

  /** Returns the canonical names, in registration order. */
  public synchronized List<String> names() {
    return policies.stream().map(BalancingPolicy::name).toList();
  }

  /** Returns the policies, in registration order. */
  public synchronized List<BalancingPolicy<?>> policies() {
    return List.copyOf(policies);
  }
}
