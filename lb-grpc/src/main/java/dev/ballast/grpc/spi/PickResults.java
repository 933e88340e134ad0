package dev.ballast.grpc.spi;

import io.grpc.ClientStreamTracer;
import io.grpc.LoadBalancer.PickResult;
import io.grpc.LoadBalancer.Subchannel;

/**
 * Makes the pick results a backend hands gRPC, once per subchannel and tracer factory when the
 * backend is bound, never per pick: by default the subchannel with the factory ({@link #PLAIN});
 * a policy that reads per-call load reports adds its listener there (lb-grpc-orca).
 */
@FunctionalInterface
public interface PickResults {

  /** The subchannel with the factory, as {@link PickResult#withSubchannel} makes it. */
  PickResults PLAIN = PickResult::withSubchannel;

  /**
   * Returns the result for picks of {@code subchannel} (the one the load balancer made) whose
   * streams get tracers from {@code tracers}, or from none if null.
   */
  PickResult of(Subchannel subchannel, ClientStreamTracer.Factory tracers);
}
