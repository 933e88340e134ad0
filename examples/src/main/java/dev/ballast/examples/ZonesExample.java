package dev.ballast.examples;

import dev.ballast.core.Algorithm;
import dev.ballast.core.Endpoint;
import dev.ballast.core.Node;
import dev.ballast.core.locality.LocalityBalancer;
import dev.ballast.core.locality.LocalityConfig;
import java.util.List;
import java.util.Map;

/** lb-core alone: priorities, zones and zone-aware routing for a caller in zone a. */
public final class ZonesExample {

  private ZonesExample() {}

  /** Builds a zone-aware balancer and prints where ten picks go and how each priority splits. */
  public static void main(String[] args) {
    LocalityBalancer<String> balancer = LocalityBalancer.<String>builder()
        .algorithm(Algorithm.P2C_PEAK_EWMA)
        .locality(LocalityConfig.builder().localZone("a")
            .callerZones(Map.of("a", 3, "b", 2, "c", 1)).build())
        .build();
    balancer.update(List.of(Endpoint.parse("10.0.0.1:7000;zone=a"),
        Endpoint.parse("10.0.0.2:7000;zone=b"), Endpoint.parse("10.0.0.3:7000;zone=c;priority=1")),
        Endpoint::address);
    for (int i = 0; i < 10; i++) {
      Node<String> node = balancer.pick();
      System.out.println(node.value());
      node.complete(1_000_000, true);
    }
    balancer.describe().forEach(System.out::println);
  }
}
