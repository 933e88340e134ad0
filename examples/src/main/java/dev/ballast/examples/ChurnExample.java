package dev.ballast.examples;

import dev.ballast.core.Algorithm;
import dev.ballast.core.Balancer;
import dev.ballast.core.BalancerConfig;
import dev.ballast.core.aperture.Aperture;
import dev.ballast.core.source.EndpointSource;
import dev.ballast.core.source.PeerCoordinate;
import java.time.Duration;

/** Balancing through churn in lb-core: slow start for new endpoints, deterministic aperture. */
public final class ChurnExample {

  /** Stands for whatever a node's value is in an application: a connection pool, a channel. */
  interface MyPool {}

  /** A VNSWRR balancer whose endpoints joining after its first update ramp up over 60 s. */
  static Balancer<MyPool> slowStart() {
    BalancerConfig config = BalancerConfig.builder()
        .slowStart(Duration.ofSeconds(60))              // aggression 1.0, floor 10%
        // .slowStart(Duration.ofSeconds(60), 0.5, 0.1) // slower at first, 0.1% floor
        .build();
    Balancer<MyPool> balancer = Algorithm.VNSWRR.create(config);
    return balancer;
  }

  /** An aperture client, its coordinate taken from the source that lists its peers. */
  static Aperture<MyPool> aperture(EndpointSource peersSource) {
    Aperture<MyPool> aperture = new Aperture<>(BalancerConfig.builder()
        .apertureCoordinate(7, 100)                     // client 7 of 100
        .build());
    PeerCoordinate.follow(peersSource, aperture, "10.0.0.7:9000");  // or: rank among registered peers
    return aperture;
  }

  private ChurnExample() {}
}
