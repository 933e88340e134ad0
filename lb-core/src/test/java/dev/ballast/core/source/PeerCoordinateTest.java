package dev.ballast.core.source;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.core.BalancerConfig;
import dev.ballast.core.Endpoint;
import dev.ballast.core.Node;
import dev.ballast.core.aperture.Aperture;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** An aperture's coordinate follows the source of its peers: its rank among them, their count. */
class PeerCoordinateTest {

  @Test
  void theCoordinateIsTheRankAmongThePeersSortedAddresses() {
    List<Endpoint> servers = new ArrayList<>();
    for (int i = 0; i < 100; i++) {
      servers.add(Endpoint.of("10.9.0." + (i + 1), 80));
    }
    Aperture<Integer> aperture = new Aperture<>(BalancerConfig.builder()
        .random(new SplittableRandom(1)).build());
    aperture.update(servers, servers::indexOf);
    assertThat(aperture.aperture()).hasSize(100); // a lone client: every server

    EndpointFeedTest.TestSource peers = new EndpointFeedTest.TestSource();
    PeerCoordinate.follow(peers, aperture, "10.1.0.3:9000");
    peers.listener.onEntries(Map.of("a", "10.1.0.1:9000", "b", "10.1.0.2:9000",
        "c", "10.1.0.3:9000", "d", "10.1.0.4:9000", "e", "bad entry"));
    List<Node<Integer>> third = aperture.aperture(); // index 2 of 4: half a ring later
    assertThat(third).hasSize(25);

    peers.listener.onChanges(Map.of("z", "10.1.0.0:9000"), Set.of("d"));
    // Now 10.1.0.0, .1, .2, .3: this client is index 3 of 4, the last quarter of the ring.
    List<Node<Integer>> fourth = aperture.aperture();
    assertThat(fourth).hasSize(25).doesNotContainAnyElementsOf(third);

    peers.listener.onChanges(Map.of(), Set.of("c")); // dropped from the list: stays put
    assertThat(aperture.aperture()).isEqualTo(fourth);
  }
}
