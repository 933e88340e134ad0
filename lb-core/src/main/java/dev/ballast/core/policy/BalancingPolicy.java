package dev.ballast.core.policy;

import dev.ballast.core.BalancerConfig;
import dev.ballast.core.ChildBalancer;
import dev.ballast.core.config.OptionSet;
import java.util.List;
import java.util.Set;

/**
 * A balancing policy as a plugin (the model: gRPC-java's {@code LoadBalancerProvider}, Envoy's
 * typed load-balancing-policy extensions, Finagle's {@code Balancers}): its name, its own options
 * and a factory of balancers over nodes. lb-core's algorithms are policies registered in {@link
 * PolicyRegistry}; a team registers its own the same way (a {@code
 * META-INF/services/dev.ballast.core.policy.BalancingPolicy} entry, or {@link
 * PolicyRegistry#register}), and every front end then finds it by name: lb-netty's {@code
 * balancer("name", options)}, Spring's {@code ballast.clients.NAME.balancer} with {@code
 * policy.*} properties, a gRPC service config through lb-grpc's {@code PolicyLoadBalancerProvider}.
 *
 * <p>A policy that picks among nodes without tables of its own writes a {@link
 * dev.ballast.core.engine.Distributor} and returns {@code new DistributorBalancer<>(name(),
 * common, factory)}, which keeps the nodes, their load state across updates, slow start and the
 * bounded search for an open node; one that picks by key writes a {@link
 * dev.ballast.core.engine.KeyedDistributor} under a {@code KeyedDistributorBalancer}.
 *
 * @param <C> the policy's own immutable config, decoded once by {@link #options()}
 */
public interface BalancingPolicy<C> {

  /**
   * Returns the canonical name, e.g. {@code p2c_peak_ewma}: lower case, words joined by {@code _}
   * (front ends match {@code -} and {@code _} alike, and any case).
   */
  String name();

  /** Returns other names that select this policy; default none. */
  default List<String> aliases() {
    return List.of();
  }

  /** Returns what the policy reads, which front ends provide only when asked; default none. */
  default Set<Trait> traits() {
    return Set.of();
  }

  /**
   * Returns the policy's own options (names, types, defaults, checks, examples), decoded from a
   * map of names to values by every front end; {@link #NO_OPTIONS} when it has none.
   */
  OptionSet<C, ?> options();

  /**
   * Creates an empty balancer of this policy.
   *
   * @param common the settings every balancer reads (clock, random source, effort, panic pick,
   *     slow start)
   * @param config this policy's config, as decoded by {@link #options()}
   */
  <T> ChildBalancer<T> newBalancer(BalancerConfig common, C config);

  /** The option set of a policy that takes no options of its own. */
  OptionSet<dev.ballast.core.config.Values, dev.ballast.core.config.Values> NO_OPTIONS =
      OptionSet.ofValues("policy", v -> { }, List.of());
}
