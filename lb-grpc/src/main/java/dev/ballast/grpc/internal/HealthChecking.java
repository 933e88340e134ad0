package dev.ballast.grpc.internal;

import io.grpc.LoadBalancer;
import io.grpc.protobuf.services.HealthCheckingLoadBalancerUtil;
import java.util.function.Function;

/**
 * Client-side health checking for Ballast's policies, by gRPC-java's own mechanism (gRFC A17):
 * when the service config names a service ({@code "healthCheckConfig": {"serviceName":
 * "orders"}}) and grpc-services is on the class path, the policy runs behind grpc-services'
 * {@code HealthCheckingLoadBalancerUtil}, which keeps a {@code grpc.health.v1.Health/Watch}
 * stream on each READY subchannel and reports NOT_SERVING (or a broken stream) to the policy as
 * TRANSIENT_FAILURE and SERVING as READY. The policy turns those into node availability as it
 * does for connectivity ({@link SubchannelLoadBalancer}), so a NOT_SERVING backend takes no call
 * until it serves again; a server without the health service (UNIMPLEMENTED) counts as healthy.
 *
 * <p>Without a healthCheckConfig the policy runs bare: grpc-services' wrapper copies the pick
 * result of every pick, an allocation a policy that checks nothing should not pay. The choice is
 * made on each address update from the channel's health-checking attribute (internal to gRPC,
 * read-only here); when it changes, the policy is made again (its subchannels reconnect).
 */
public final class HealthChecking extends SwitchingLoadBalancer {

  private static final boolean AVAILABLE =
      ClassPresence.present("io.grpc.protobuf.services.HealthCheckingLoadBalancerUtil");

  private final Function<Helper, LoadBalancer> policy;

  private HealthChecking(Helper helper, Function<Helper, LoadBalancer> policy) {
    super(helper);
    this.policy = policy;
  }

  /** Returns whether gRPC-java's health checking can be used (grpc-services is present). */
  public static boolean available() {
    return AVAILABLE;
  }

  /**
   * Returns the policy made by {@code policy}, behind gRPC-java's health checking whenever the
   * service config asks for it and grpc-services is present.
   */
  public static LoadBalancer wrap(Helper helper, Function<Helper, LoadBalancer> policy) {
    return AVAILABLE ? new HealthChecking(helper, policy) : policy.apply(helper);
  }

  /** Whether the channel asks for health checks. */
  @Override
  boolean kind(ResolvedAddresses resolved) {
    return resolved.getAttributes().get(ATTR_HEALTH_CHECKING_CONFIG) != null;
  }

  @Override
  LoadBalancer make(boolean checked) {
    return checked ? Services.wrap(helper, policy) : policy.apply(helper);
  }

  /** Loaded only when grpc-services is present. */
  private static final class Services {
    static LoadBalancer wrap(Helper helper, Function<Helper, LoadBalancer> policy) {
      return HealthCheckingLoadBalancerUtil.newHealthCheckingLoadBalancer(new Factory() {
        @Override
        public LoadBalancer newLoadBalancer(Helper h) {
          return policy.apply(h);
        }
      }, helper);
    }
  }
}
