package dev.ballast.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.Attributes;
import io.grpc.ManagedChannel;
import io.grpc.ServerTransportFilter;
import io.grpc.internal.JsonParser;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A gRPC {@code aperture} channel over 200 real servers connects only to the servers under its
 * arc, counted at the servers, and follows the arc as addresses come and go; gRPC's {@code
 * round_robin} over the same list connects to all 200.
 *
 * <p>The expected arc is computed here from the aperture's definition: the listed addresses in
 * address order, client 7 of 100 starts at position 7/100 of the ring and, with 200 servers,
 * spans 12 of them (12 x 100 / 200 = 6 whole client slices).
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class ApertureOverRealServersTest {

  private static final int LISTED = 200;
  private static final int SERVERS = 220; // 20 more to add in the rounds
  private static final int APERTURE = 12;
  private static final int BOUND = 16;
  // notified by the servers' transport filters whenever a connection opens or closes
  private static final Object CONNECTIONS = new Object();
  private static final String SERVICE_CONFIG = "{\"loadBalancingConfig\": [{\"aperture\":"
      + " {\"aperture\": {\"clientIndex\": 7, \"clientCount\": 100}}}]}";

  private final Opened opened = new Opened();
  private final AtomicIntegerArray open = new AtomicIntegerArray(SERVERS);
  private final AtomicIntegerArray everOpened = new AtomicIntegerArray(SERVERS);
  private final AtomicInteger openNow = new AtomicInteger();
  private final AtomicInteger peak = new AtomicInteger();
  private final String name = "aperture-fleet-" + System.nanoTime();

  @AfterEach
  void tearDown() throws Exception {
    opened.close();
    EndpointRegistry.global().get(name)
        .ifPresent(list -> EndpointRegistry.global().unpublish(name, list));
  }

  @Test
  void apertureConnectsOnlyToItsArcThroughChurnWhileRoundRobinConnectsToAll() throws Exception {
    long t0 = System.nanoTime();
    TestServers s = opened.servers();
    for (int i = 0; i < SERVERS; i++) {
      s.add(0, counting(i));
    }
    Map<String, Integer> indexOf = new TreeMap<>();
    for (int i = 0; i < SERVERS; i++) {
      indexOf.put("127.0.0.1:" + s.port(i), i);
    }
    List<Integer> listed = new ArrayList<>(IntStream.range(0, LISTED).boxed().toList());
    publish(s, listed);

    // the contrast: gRPC's round_robin over the same 200 addresses connects to every one
    ManagedChannel rr = channel(NettyChannelBuilder.forTarget("ballast://" + name)
        .defaultLoadBalancingPolicy("round_robin"));
    TestServers.call(rr);
    await(() -> openNow.get() == LISTED, () -> "round_robin connections: " + openNow.get());
    int roundRobin = openNow.get();
    long t1 = System.nanoTime();
    rr.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
    await(() -> openNow.get() == 0, () -> "round_robin connections left: " + openNow.get());
    reset();

    @SuppressWarnings("unchecked")
    Map<String, ?> config = (Map<String, ?>) JsonParser.parse(SERVICE_CONFIG);
    ManagedChannel ch = channel(NettyChannelBuilder.forTarget("ballast://" + name)
        .defaultServiceConfig(config));
    Set<Integer> window = window(s, listed);
    assertThat(window).hasSize(APERTURE);
    Set<Integer> everInWindow = new HashSet<>(window);
    TestServers.call(ch);
    awaitConnected(window);

    // spread: sequential calls, so P2C sees no load and draws evenly over the arc
    s.resetCounts();
    for (int i = 0; i < 600; i++) {
      assertThat(window).contains(TestServers.call(ch));
    }
    for (int w : window) {
      assertThat(s.calls(w)).as("calls to server %d of %s", w, window).isBetween(20, 80);
    }
    assertThat(openNow.get()).as("connections at the servers").isEqualTo(APERTURE);
    assertThat(sum(everOpened)).as("connections opened").isEqualTo(APERTURE);

    long t2 = System.nanoTime();
    // churn: each round withdraws one server of the arc and four others, lists five unlisted
    Random random = new Random(47);
    List<long[]> departures = new ArrayList<>(); // {nanoTime, servers that left the arc}
    for (int round = 0; round < 20; round++) {
      int openedBefore = sum(everOpened);
      List<Integer> arc = new ArrayList<>(window);
      Set<Integer> out = new HashSet<>();
      out.add(arc.get(random.nextInt(arc.size())));
      while (out.size() < 5) {
        out.add(listed.get(random.nextInt(listed.size())));
      }
      List<Integer> unlisted = IntStream.range(0, SERVERS).boxed()
          .filter(i -> !listed.contains(i)).collect(Collectors.toList());
      listed.removeAll(out);
      for (int k = 0; k < 5; k++) {
        listed.add(unlisted.remove(random.nextInt(unlisted.size())));
      }
      publish(s, listed);
      Set<Integer> before = window;
      window = window(s, listed);
      everInWindow.addAll(window);
      Set<Integer> current = window;
      awaitConnected(current);
      // the channel has the new list once a call reaches a server new to the arc
      Set<Integer> joined = new HashSet<>(current);
      joined.removeAll(before);
      departures.add(new long[] {System.nanoTime(), joined.size()}); // as many left as joined
      int joinedCount = joined.size();
      for (int i = 0; !joined.isEmpty(); i++) {
        assertThat(i).as("calls before the arc's new servers %s answer", joined).isLessThan(2_000);
        int answered = TestServers.call(ch);
        assertThat(everInWindow).contains(answered);
        joined.remove(answered);
      }
      for (int i = 0; i < 24; i++) {
        assertThat(current).contains(TestServers.call(ch));
      }
      // at most one connection per server new to the arc (one that comes back finds its spare
      // open), and none elsewhere
      assertThat(sum(everOpened) - openedBefore).as("connections opened in round %d", round)
          .isLessThanOrEqualTo(joinedCount);
      // beyond the arc and its spares, only connections of subchannels shut down in the last
      // seconds, which gRPC's channel keeps 5 s for picks in flight before it closes them
      long recent = System.nanoTime() - TimeUnit.SECONDS.toNanos(8);
      int draining = departures.stream().filter(d -> d[0] > recent).mapToInt(d -> (int) d[1]).sum();
      assertThat(openNow.get() - draining).as("connections in round %d less %d draining", round,
          draining).isLessThanOrEqualTo(BOUND);
      for (int i = 0; i < SERVERS; i++) {
        if (everOpened.get(i) > 0) {
          assertThat(everInWindow).as("server %d was connected", i).contains(i);
        }
      }
    }

    long t3 = System.nanoTime();
    // the subchannels shut down as the arc moved: gRPC keeps each connection 5 s for picks in
    // flight, then closes it; what stays is the arc
    Set<Integer> last = window;
    await(() -> openNow.get() <= BOUND && last.stream().allMatch(w -> open.get(w) == 1),
        () -> "connections after the churn: " + openNow.get() + ", to the arc "
            + last.stream().map(open::get).toList());
    int connectedEver = 0;
    for (int i = 0; i < SERVERS; i++) {
      connectedEver += everOpened.get(i) > 0 ? 1 : 0;
    }
    System.out.printf("round_robin opened %d connections; aperture %d at start, %d after 20"
            + " rounds (peak %d while gRPC drained), %d servers ever connected, %d ever in the"
            + " arc; servers and round_robin %d ms, arc %d ms, rounds %d ms, drain %d ms%n",
        roundRobin, APERTURE, openNow.get(), peak.get(), connectedEver, everInWindow.size(),
        (t1 - t0) / 1_000_000, (t2 - t1) / 1_000_000, (t3 - t2) / 1_000_000,
        (System.nanoTime() - t3) / 1_000_000);
    assertThat(roundRobin).isEqualTo(LISTED);
    assertThat(connectedEver).isLessThanOrEqualTo(everInWindow.size());
  }

  /** The servers under client 7 of 100's arc: 12 positions from 7/100 of the sorted list. */
  private static Set<Integer> window(TestServers s, List<Integer> listed) {
    List<Integer> sorted = new ArrayList<>(listed);
    sorted.sort((a, b) -> ("127.0.0.1:" + s.port(a)).compareTo("127.0.0.1:" + s.port(b)));
    int first = sorted.size() * 7 / 100;
    return new HashSet<>(sorted.subList(first, first + APERTURE));
  }

  private void publish(TestServers s, List<Integer> listed) {
    EndpointRegistry.global().publish(name, listed.stream()
        .map(i -> "127.0.0.1:" + s.port(i)).collect(Collectors.joining(",")));
  }

  /** Waits until every server of the arc holds a connection. */
  private void awaitConnected(Set<Integer> arc) {
    await(() -> arc.stream().allMatch(w -> open.get(w) >= 1),
        () -> "arc " + arc + " connections " + arc.stream().map(open::get).toList());
  }

  private static int sum(AtomicIntegerArray counts) {
    int sum = 0;
    for (int i = 0; i < counts.length(); i++) {
      sum += counts.get(i);
    }
    return sum;
  }

  private ManagedChannel channel(NettyChannelBuilder builder) {
    return opened.channel(builder);
  }

  private void reset() {
    for (int i = 0; i < SERVERS; i++) {
      everOpened.set(i, 0);
    }
    peak.set(0);
  }

  /** Counts server {@code i}'s transports that became ready and have not terminated. */
  private ServerTransportFilter counting(int i) {
    Attributes.Key<Boolean> ready = Attributes.Key.create("ready");
    return new ServerTransportFilter() {
      @Override
      public Attributes transportReady(Attributes attrs) {
        open.incrementAndGet(i);
        everOpened.incrementAndGet(i);
        peak.accumulateAndGet(openNow.incrementAndGet(), Math::max);
        changed();
        return attrs.toBuilder().set(ready, true).build();
      }

      @Override
      public void transportTerminated(Attributes attrs) {
        if (attrs != null && attrs.get(ready) != null) {
          open.decrementAndGet(i);
          openNow.decrementAndGet();
          changed();
        }
      }
    };
  }

  private static void changed() {
    synchronized (CONNECTIONS) {
      CONNECTIONS.notifyAll();
    }
  }

  /**
   * Waits up to 15 s for {@code condition} on the servers' connections, woken by each connection
   * that opens or closes (the condition is read under the same lock, so no change is missed).
   */
  private static void await(BooleanSupplier condition, Supplier<String> state)  {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
    synchronized (CONNECTIONS) {
      while (!condition.getAsBoolean()) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          throw new AssertionError("not reached in 15 s: " + state.get());
        }
        try {
          TimeUnit.NANOSECONDS.timedWait(CONNECTIONS, left);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new AssertionError(e);
        }
      }
    }
  }
}
