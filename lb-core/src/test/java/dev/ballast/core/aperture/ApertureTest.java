package dev.ballast.core.aperture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.core.Availability;
import dev.ballast.core.BalancerConfig;
import dev.ballast.core.Endpoint;
import dev.ballast.core.Fixtures;
import dev.ballast.core.Node;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Deterministic aperture: a client picks only among the servers under its arc, at least 12 of
 * them; all clients together load every server alike; the aperture widens with load and narrows
 * back; the coordinate can move.
 */
class ApertureTest {

  private static List<Endpoint> servers(int n) {
    int[] ones = new int[n];
    java.util.Arrays.fill(ones, 1);
    return Fixtures.endpoints(ones);
  }

  private static Aperture<Integer> client(int index, int count, List<Endpoint> servers) {
    Aperture<Integer> a = new Aperture<>(BalancerConfig.builder()
        .random(new SplittableRandom(31L * index + count)).apertureCoordinate(index, count).build());
    a.update(servers, servers::indexOf);
    return a;
  }

  /** The servers in ring order: sorted by address, as every client sorts them. */
  private static List<Integer> ringOrder(List<Endpoint> servers) {
    List<Integer> order = new ArrayList<>();
    for (int i = 0; i < servers.size(); i++) {
      order.add(i);
    }
    order.sort(Comparator.comparing(i -> servers.get(i).address()));
    return order;
  }

  @Test
  void aClientPicksOnlyTheTwelveServersUnderItsArc() {
    List<Endpoint> servers = servers(100);
    List<Integer> ring = ringOrder(servers);
    Aperture<Integer> a = client(30, 100, servers); // offset 0.3: ring positions 30 to 41
    Set<Integer> expected = new HashSet<>(ring.subList(30, 42));
    assertThat(a.aperture()).extracting(Node::value).containsExactlyElementsOf(ring.subList(30, 42));
    Set<Integer> picked = new HashSet<>();
    for (int i = 0; i < 10_000; i++) {
      picked.add(Fixtures.pickOnce(a));
    }
    assertThat(picked).isEqualTo(expected);
  }

  @Test
  void theArcCoversWholeClientSlicesSoEveryServerGetsTheSameLoad() {
    // 7 clients over 40 servers: each arc is ceil(12 x 7 / 40) = 3 client slices (3/7 of the
    // ring, about 17 servers); each point of the ring is under exactly 3 arcs.
    List<Endpoint> servers = servers(40);
    long[] load = new long[40];
    for (int c = 0; c < 7; c++) {
      Aperture<Integer> a = client(c, 7, servers);
      assertThat(a.aperture().size()).isBetween(17, 19);
      for (int i = 0; i < 40_000; i++) {
        load[Fixtures.pickOnce(a)]++;
      }
    }
    double mean = 7 * 40_000 / 40.0;
    for (int s = 0; s < 40; s++) {
      assertThat(load[s] / mean).as("server %d", s).isBetween(0.9, 1.1);
    }
  }

  @Test
  void fewServersOrALoneClientMeanAllServers() {
    assertThat(client(3, 5, servers(8)).aperture()).hasSize(8);
    assertThat(client(0, 1, servers(50)).aperture()).hasSize(50);
  }

  @Test
  void theApertureWidensWithLoadAndNarrowsBack() {
    List<Endpoint> servers = servers(100);
    Aperture<Integer> a = client(0, 100, servers);
    List<Node<Integer>> held = new ArrayList<>();
    for (int i = 0; i < 2000; i++) {
      held.add(a.pick()); // never completed: pending grows
    }
    // One server more per check (32 picks) while the load stays above the band.
    assertThat(a.aperture().size()).isBetween(40, 2000 / 32 + Aperture.MIN_APERTURE);
    for (Node<Integer> n : held) {
      n.cancel();
    }
    for (int i = 0; i < 20_000; i++) {
      Fixtures.pickOnce(a);
    }
    assertThat(a.aperture()).hasSize(Aperture.MIN_APERTURE);
  }

  @Test
  void theListenerHearsEveryMoveButUpdatesAndOnlyMoves() {
    List<Endpoint> servers = servers(100);
    Aperture<Integer> a = client(0, 100, servers);
    List<Integer> widths = new ArrayList<>();
    a.onWindowMoved(() -> widths.add(a.window().size()));

    a.update(servers.subList(0, 90), servers::indexOf); // an update: its caller reads the window
    assertThat(widths).isEmpty();
    for (int i = 0; i < 320; i++) {
      Fixtures.pickOnce(a); // each call ends at once: the load stays in the band
    }
    assertThat(widths).isEmpty();
    List<Node<Integer>> held = new ArrayList<>();
    for (int i = 0; i < 640; i++) {
      held.add(a.pick()); // never completed: the band widens the aperture
    }
    assertThat(widths).isNotEmpty().isSorted();
    assertThat(widths.get(widths.size() - 1)).isEqualTo(a.window().size());
    int moves = widths.size();

    a.setCoordinate(50, 100);
    assertThat(widths).hasSize(moves + 1);
    a.onWindowMoved(null);
    a.setCoordinate(20, 100);
    assertThat(widths).hasSize(moves + 1);
    held.forEach(Node::cancel);
  }

  @Test
  void aNewCoordinateMovesTheArcAndBadOnesAreRejected() {
    List<Endpoint> servers = servers(100);
    List<Integer> ring = ringOrder(servers);
    Aperture<Integer> a = client(0, 100, servers);
    a.setCoordinate(50, 100);
    assertThat(a.aperture()).extracting(Node::value).containsExactlyElementsOf(ring.subList(50, 62));
    assertThatThrownBy(() -> a.setCoordinate(100, 100))
        .hasMessage("aperture.clientIndex: 100 (expected: 0 to 99)");
    assertThatThrownBy(() -> BalancerConfig.builder().apertureCoordinate(0, 0))
        .hasMessage("aperture.clientCount: 0 (expected: > 0)");
  }

  @Test
  void whenNoServerUnderTheArcIsOpenAnyOpenOneIsPicked() {
    List<Endpoint> servers = servers(100);
    Aperture<Integer> a = client(10, 100, servers);
    Set<Integer> window = new HashSet<>();
    for (Node<Integer> n : a.aperture()) {
      n.setAvailability(Availability.CLOSED);
      window.add(n.value());
    }
    for (int i = 0; i < 100; i++) {
      assertThat(window).doesNotContain(Fixtures.pickOnce(a));
    }
  }
}
