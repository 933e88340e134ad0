package dev.ballast.grpc.internal;

import static dev.ballast.grpc.internal.BalancerLoadBalancerTest.ARGS;
import static dev.ballast.grpc.internal.BalancerLoadBalancerTest.group;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.core.BalancerConfig;
import dev.ballast.core.policy.BalancingPolicy;
import dev.ballast.core.policy.ConfiguredPolicy;
import dev.ballast.core.aperture.Aperture;
import dev.ballast.grpc.internal.FakeHelper.FakeSubchannel;
import io.grpc.ClientStreamTracer;
import io.grpc.ConnectivityState;
import io.grpc.EquivalentAddressGroup;
import io.grpc.LoadBalancer;
import io.grpc.Metadata;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeSet;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * An {@code aperture} policy makes subchannels only for its window, keeps up to a third of the
 * window as spares when the window moves, shuts down the ones out the longest beyond that, and
 * follows a window that the load band widens between address updates.
 *
 * <p>Ports 1001 and up sort by address as by number, so client 1 of 10 over 40 addresses has
 * the window of positions 4 to 15 (12 x 10 / 40 = 3 whole client slices).
 */
class ApertureSubchannelsTest {

  private final FakeHelper helper = new FakeHelper();
  private final BalancingPolicy<?> aperture = ConfiguredPolicy.named("aperture");
  private final BalancerLoadBalancer lb = BalancerLoadBalancer.of(helper, aperture, "aperture",
      BalancerConfig.builder().random(new SplittableRandom(7)).build());
  // client 1 of 10, as a service config gives it
  private final Object config = PolicyConfig.decode(aperture,
      Map.of("aperture", Map.of("clientIndex", 1.0, "clientCount", 10.0)),
      BalancerConfig.defaults());

  private void accept(int from, int to) {
    List<EquivalentAddressGroup> groups = new ArrayList<>();
    IntStream.rangeClosed(from, to).forEach(p -> groups.add(group(p)));
    helper.syncContext.execute(() -> lb.acceptResolvedAddresses(
        LoadBalancer.ResolvedAddresses.newBuilder().setAddresses(groups)
            .setLoadBalancingPolicyConfig(config).build()));
  }

  /** The ports of the subchannels made and not shut down. */
  private TreeSet<Integer> held() {
    TreeSet<Integer> ports = new TreeSet<>();
    for (FakeSubchannel s : helper.subchannels) {
      if (!s.shutdown) {
        ports.add(((InetSocketAddress) s.getAddresses().getAddresses().get(0)).getPort());
      }
    }
    return ports;
  }

  private static TreeSet<Integer> ports(int from, int to) {
    TreeSet<Integer> ports = new TreeSet<>();
    IntStream.rangeClosed(from, to).forEach(ports::add);
    return ports;
  }

  private void readyAll() {
    for (FakeSubchannel s : List.copyOf(helper.subchannels)) {
      if (!s.shutdown) {
        helper.syncContext.execute(() -> s.set(ConnectivityState.READY));
      }
    }
  }

  @Test
  void subchannelsOnlyForTheWindowEachAskedToConnect() {
    accept(1001, 1040);

    assertThat(helper.subchannels).hasSize(12);
    assertThat(held()).isEqualTo(ports(1005, 1016));
    assertThat(helper.subchannels).allMatch(s -> s.connectionRequests == 1);
    readyAll();
    for (int i = 0; i < 200; i++) {
      int port = ((InetSocketAddress) helper.picker.pickSubchannel(ARGS).getSubchannel()
          .getAddresses().getAddresses().get(0)).getPort();
      assertThat(port).isBetween(1005, 1016);
    }
  }

  @Test
  void leaversStayAsSparesUpToAThirdOfTheWindowAndComeBackWithoutReconnecting() {
    accept(1003, 1042); // window 1007..1018
    assertThat(held()).isEqualTo(ports(1007, 1018));

    accept(1005, 1044); // window 1009..1020; 1007 and 1008 are spares
    assertThat(held()).isEqualTo(ports(1007, 1020));

    accept(1007, 1046); // window 1011..1022; spares 1007..1010
    assertThat(held()).isEqualTo(ports(1007, 1022));
    assertThat(helper.subchannels).hasSize(16);

    accept(1005, 1044); // back to 1009..1020 from the spares; 1021 and 1022 become spares
    assertThat(held()).isEqualTo(ports(1007, 1022));
    assertThat(helper.subchannels).hasSize(16); // nothing made again
  }

  @Test
  void aNewCoordinateMovesTheWindowAndShutsDownTheSparesOutTheLongest() {
    accept(1003, 1042); // window 1007..1018
    accept(1005, 1044); // window 1009..1020; spares 1007, 1008

    ((Aperture<Backend>) lb.balancer()).setCoordinate(5, 10); // window 1025..1036

    TreeSet<Integer> held = held();
    assertThat(held).hasSize(16).containsAll(ports(1025, 1036));
    assertThat(ports(1009, 1020)).containsAll(held.headSet(1025)); // the last window's four
    assertThat(helper.subchannel(1007).shutdown).isTrue();
    assertThat(helper.subchannel(1008).shutdown).isTrue();
    assertThat(helper.subchannels).hasSize(26);
  }

  @Test
  void aSpareWhoseConnectionGoesIdleIsShutDownNotReconnected() {
    accept(1003, 1042);
    accept(1005, 1044); // spares 1007 and 1008
    readyAll();
    FakeSubchannel spare = helper.subchannel(1007);
    FakeSubchannel inWindow = helper.subchannel(1009);

    helper.syncContext.execute(() -> spare.set(ConnectivityState.IDLE));
    helper.syncContext.execute(() -> inWindow.set(ConnectivityState.IDLE));

    assertThat(spare.shutdown).isTrue();
    assertThat(spare.connectionRequests).isEqualTo(1);
    assertThat(inWindow.shutdown).isFalse();
    assertThat(inWindow.connectionRequests).isEqualTo(2); // asked again, as ever
  }

  @Test
  void removedAddressesAreShutDownAtOnceEvenAsSpares() {
    accept(1003, 1042);
    accept(1005, 1044); // spares 1007 and 1008

    accept(1009, 1048); // 1007 and 1008 withdrawn

    assertThat(helper.subchannel(1007).shutdown).isTrue();
    assertThat(helper.subchannel(1008).shutdown).isTrue();
    assertThat(held()).isEqualTo(ports(1009, 1024)); // window 1013..1024, spares 1009..1012
  }

  @Test
  void aWindowWidenedByLoadGetsItsSubchannelBetweenUpdates() {
    accept(1001, 1040);
    readyAll();
    List<ClientStreamTracer> open = new ArrayList<>();

    // calls that never end: the load band widens the aperture, and the new server is connected
    for (int i = 0; i < 2_000 && held().size() == 12; i++) {
      LoadBalancer.PickResult r = helper.picker.pickSubchannel(ARGS);
      open.add(r.getStreamTracerFactory().newClientStreamTracer(
          ClientStreamTracer.StreamInfo.newBuilder().build(), new Metadata()));
    }

    // 13 servers' worth of the ring, rounded up to whole client slices: 4 of 10, 16 servers
    assertThat(held()).isEqualTo(ports(1005, 1020));
    for (int p = 1017; p <= 1020; p++) {
      assertThat(helper.subchannel(p).connectionRequests).isEqualTo(1);
    }
  }
}
