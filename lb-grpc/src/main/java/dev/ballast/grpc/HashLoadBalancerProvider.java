package dev.ballast.grpc;

import dev.ballast.core.Algorithm;
import dev.ballast.core.BalancerConfig;
import dev.ballast.core.policy.ConfiguredPolicy;
import dev.ballast.core.policy.Trait;
import dev.ballast.grpc.internal.HashLoadBalancer;
import io.grpc.CallOptions;
import java.util.Objects;

/**
 * A gRPC policy that sends each call to the subchannel its key hashes to, over an lb-core {@link
 * dev.ballast.core.HashBalancer}: {@code ring_hash} ({@link
 * RingHashLoadBalancerProvider}), {@code ketama} ({@link KetamaLoadBalancerProvider}) and
 * {@code maglev} ({@link MaglevLoadBalancerProvider}).
 *
 * <p>A call's key is {@link #REQUEST_KEY} if set, else the value of the header named by the
 * config's {@code requestHashHeader} (gRFC A76; repeated values joined with commas); a call with
 * neither goes to a random subchannel. A key whose subchannel failed (TRANSIENT_FAILURE) or is
 * over its bounded load goes to the next one on the ring or table; one whose subchannel is
 * connecting waits for it, as in gRPC's {@code ring_hash}. Config (service-config JSON, every
 * field optional; lb-core's {@link dev.ballast.core.policy.CoreOptions#HASH}, decoded by its
 * codec; every policy here takes every field, each reads its own):
 *
 * <pre>{@code
 * {"requestHashHeader": "x-user-id",  the header holding the key (none: only REQUEST_KEY)
 *  "loadBound": 1.25,                 bounded-load factor c, at least 1 (default 0: off)
 *  "minRingSize": 1024,               ring_hash (gRPC's defaults)
 *  "maxRingSize": 4096,               ring_hash
 *  "tableSize": 65537,                maglev, a prime
 *  "keyHash": "fnv1a_64",             ketama: twemproxy's key hash (md5, murmur, ...)
 *  "nameLabel": "name"}               ketama, maglev: the endpoint label naming a server
 * }</pre>
 */
public abstract class HashLoadBalancerProvider extends AlgorithmLoadBalancerProvider {

  /**
   * The call option carrying a call's key; when set, no header is read. Use it as {@code
   * stub.withOption(REQUEST_KEY, "user-42")}.
   */
  public static final CallOptions.Key<String> REQUEST_KEY = HashLoadBalancer.REQUEST_KEY;

  /**
   * Creates the provider of a policy of lb-core's registry that picks by key.
   *
   * @param policy the policy's name in lb-core's registry, e.g. {@code ketama}
   * @param policyName the name a service config gives
   * @param base lb-core settings (e.g. a seeded random source for calls without a key); panic
   *     picks are always off
   * @throws IllegalArgumentException if the policy does not pick by key
   */
  protected HashLoadBalancerProvider(String policy, String policyName, BalancerConfig base) {
    super(checked(policy), policyName, base);
  }

  /**
   * Creates the provider.
   *
   * @param base lb-core settings (e.g. a seeded random source for calls without a key); panic
   *     picks are always off
   * @throws IllegalArgumentException if the algorithm does not pick by key
   * @deprecated name the policy: {@link #HashLoadBalancerProvider(String, String, BalancerConfig)}
   */
  @Deprecated(since = "0.1.0", forRemoval = true)
  protected HashLoadBalancerProvider(Algorithm algorithm, String policyName, BalancerConfig base) {
    this(algorithm.id(), policyName, base);
  }

  private static String checked(String policy) {
    if (!ConfiguredPolicy.named(Objects.requireNonNull(policy, "policy")).traits()
        .contains(Trait.PICKS_BY_KEY)) {
      throw new IllegalArgumentException("policy: " + policy + " (expected: one that picks by key)");
    }
    return policy;
  }
}
