package dev.ballast.examples;

import dev.ballast.core.Algorithm;
import dev.ballast.core.Endpoint;
import dev.ballast.core.Node;
import dev.ballast.core.subset.FallbackPolicy;
import dev.ballast.core.subset.RequestLabels;
import dev.ballast.core.subset.SubsetSelector;
import dev.ballast.netty.BallastClient;
import dev.ballast.netty.CallOptions;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** Label-routed subsets, in lb-core alone and in an lb-netty client. */
public final class SubsetsExample {

  /** lb-core: picks among the endpoints whose labels match the request's; values are addresses here. */
  static String pickCanaryInZoneA() {
    SubsetSelector<String> selector = SubsetSelector.<String>builder()
        .selector("zone")
        .selector("zone", "version")
        .fallbackPolicy(FallbackPolicy.DEFAULT_SUBSET)
        .defaultSubset(Map.of("version", "stable"))
        .algorithm(Algorithm.P2C_PEAK_EWMA)          // child balancers; default ROUND_ROBIN
        .build();
    selector.update(Endpoint.parseList(
        "10.0.0.1:8080;zone=a;version=stable,10.0.0.2:8080;zone=a;version=canary,"
            + "10.0.0.3:8080;zone=b;version=stable"), Endpoint::address);

    // A registry pushes a change: 10.0.0.2 becomes stable, 10.0.0.3 goes away, 10.0.0.4 is new.
    List<Node<String>> gone = selector.apply(
        List.of(Endpoint.parse("10.0.0.2:8080;zone=a;version=stable"),
            Endpoint.parse("10.0.0.4:8080;zone=b;version=canary")),
        List.of("10.0.0.3:8080"),
        Endpoint::address);
    // gone holds 10.0.0.3's node: close what its value holds once its requests end

    RequestLabels canaryInA = RequestLabels.of("zone", "a", "version", "canary"); // build once
    Node<String> node = selector.pick(canaryInA);   // no canary left in zone a: the default subset
    node.complete(1_000_000, true);                  // latency (ns) and outcome, as for any pick
    return node.value() + " (removed: " + gone.get(0).address() + ")";
  }

  /** lb-netty: the zone=b call goes to zone b only; a call without labels to the default, zone=a. */
  static byte[][] callByZone(String endpoints, byte[] payload) throws Exception {
    try (BallastClient<byte[], byte[]> client = BallastClient.framed()
        .endpoints(endpoints)                                  // "10.0.0.1:9000;zone=a,10.0.0.3:9000;zone=b"
        .balancer(Algorithm.P2C_PEAK_EWMA)                      // the algorithm inside each subset
        .subsets(List.of(Set.of("zone")), FallbackPolicy.DEFAULT_SUBSET, Map.of("zone", "a"))
        .build()) {
      CallOptions zoneB = CallOptions.DEFAULT.withLabels(RequestLabels.of("zone", "b")); // reuse it
      byte[] fromB = client.call(payload, zoneB).get();
      byte[] fromA = client.call(payload).get();              // no labels: the default subset
      return new byte[][] {fromB, fromA};
    }
  }

  private SubsetsExample() {}
}
