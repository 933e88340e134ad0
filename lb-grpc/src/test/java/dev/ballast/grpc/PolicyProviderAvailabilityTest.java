package dev.ballast.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.grpc.LoadBalancerRegistry;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.Test;

/**
 * A provider whose policy is not registered in lb-core is left out by gRPC's registry with
 * gRPC's own words only ({@code isAvailable() returned false}); the provider says why, and what
 * to do, in a WARNING.
 */
class PolicyProviderAvailabilityTest {

  @Test
  void aProviderOfAnUnregisteredPolicySaysWhyItIsNotAvailable() {
    Logger log = Logger.getLogger(PolicyLoadBalancerProvider.class.getName());
    List<String> logged = new CopyOnWriteArrayList<>();
    Handler recorder = new Handler() {
      @Override
      public void publish(LogRecord r) {
        logged.add(r.getLevel() + " " + r.getMessage());
      }

      @Override
      public void flush() {}

      @Override
      public void close() {}
    };
    log.addHandler(recorder);
    try {
      PolicyLoadBalancerProvider p = new PolicyLoadBalancerProvider("never_registered_policy");
      assertThatThrownBy(() -> new LoadBalancerRegistry().register(p))
          .isInstanceOf(IllegalArgumentException.class);
    } finally {
      log.removeHandler(recorder);
    }
    assertThat(logged).singleElement().satisfies(m -> assertThat(m)
        .startsWith("WARNING gRPC policy never_registered_policy is not available: no balancing"
            + " policy named never_registered_policy is registered in lb-core")
        .contains("PolicyRegistry.defaultRegistry().register(...)"));
  }
}
