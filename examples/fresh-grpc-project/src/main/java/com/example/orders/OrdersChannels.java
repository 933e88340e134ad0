package com.example.orders;

import dev.ballast.core.Endpoint;
import dev.ballast.grpc.EndpointRegistry;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import java.util.List;
import java.util.Map;

/** gRPC channels balanced by Ballast: use them with your generated stubs. */
public final class OrdersChannels {

  /** A channel over a fixed list, e.g. "10.0.0.1:443;weight=3;zone=a,10.0.0.2:443;zone=b". */
  public static ManagedChannel fixed(String endpoints) {
    return ManagedChannelBuilder.forTarget("ballast:///" + endpoints)
        .defaultLoadBalancingPolicy("p2c_peak_ewma") // or vnswrr, least_loaded, swrr, weighted_random
        .usePlaintext()
        .build();
  }

  /** The same with the policy's settings, as a service config (or one your resolver returns). */
  public static ManagedChannel tuned(String endpoints) {
    Map<String, ?> serviceConfig = Map.of("loadBalancingConfig", List.of(
        Map.of("p2c_peak_ewma", Map.of("decayTime", "5s", "defaultRtt", "10ms"))));
    return ManagedChannelBuilder.forTarget("ballast:///" + endpoints)
        .defaultServiceConfig(serviceConfig)
        .usePlaintext()
        .build();
  }

  /** A channel following your own service discovery: publish under a name, again on change. */
  public static ManagedChannel discovered(List<Endpoint> fromYourDiscovery) {
    EndpointRegistry.global().publish("orders", fromYourDiscovery);
    return ManagedChannelBuilder.forTarget("ballast://orders")
        .defaultLoadBalancingPolicy("vnswrr")
        .usePlaintext()
        .build();
  }

  /** Each call goes where its key hashes to: the x-user header's value (Maglev hashing). */
  public static ManagedChannel byKey(String endpoints) {
    Map<String, ?> serviceConfig = Map.of("loadBalancingConfig", List.of(
        Map.of("maglev", Map.of("requestHashHeader", "x-user", "loadBound", 1.25))));
    return ManagedChannelBuilder.forTarget("ballast:///" + endpoints)
        .defaultServiceConfig(serviceConfig)
        .usePlaintext()
        .build();
  }

  private OrdersChannels() {}
}
