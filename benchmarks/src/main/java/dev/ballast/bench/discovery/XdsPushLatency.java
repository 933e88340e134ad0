package dev.ballast.bench.discovery;

import com.google.protobuf.UInt32Value;
import dev.ballast.core.Endpoint;
import dev.ballast.core.source.EndpointFeed;
import dev.ballast.core.source.EndpointSink;
import dev.ballast.core.source.EndpointSource;
import dev.ballast.core.subset.FallbackPolicy;
import dev.ballast.core.subset.SubsetSelector;
import dev.ballast.discovery.xds.XdsBootstrap;
import dev.ballast.discovery.xds.XdsSource;
import io.envoyproxy.controlplane.cache.v3.SimpleCache;
import io.envoyproxy.controlplane.cache.v3.Snapshot;
import io.envoyproxy.controlplane.server.DiscoveryServerCallbacks;
import io.envoyproxy.controlplane.server.V3DiscoveryServer;
import io.envoyproxy.envoy.config.core.v3.Address;
import io.envoyproxy.envoy.config.core.v3.Locality;
import io.envoyproxy.envoy.config.core.v3.SocketAddress;
import io.envoyproxy.envoy.config.endpoint.v3.ClusterLoadAssignment;
import io.envoyproxy.envoy.config.endpoint.v3.LbEndpoint;
import io.envoyproxy.envoy.config.endpoint.v3.LocalityLbEndpoints;
import io.envoyproxy.envoy.service.discovery.v3.DeltaDiscoveryRequest;
import io.envoyproxy.envoy.service.discovery.v3.DeltaDiscoveryResponse;
import io.envoyproxy.envoy.service.discovery.v3.DiscoveryRequest;
import io.envoyproxy.envoy.service.discovery.v3.DiscoveryResponse;
import io.grpc.Server;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

/**
 * {@link EtcdPushLatency}'s xDS twin, State of the World against Delta in one run: 8000 endpoints
 * of one cluster in 8 localities (zones) of 1000, weights 1-10, served by java-control-plane's
 * server (started here on 127.0.0.1, as the tests do) to two clients, one per protocol (node ids
 * {@code sotw} and {@code delta}); each client's {@link SubsetSelector} (subsets by zone) follows
 * the cluster through its {@link XdsSource} and {@link EndpointFeed}. Pushes alternate between
 * the two, so both run under the same load: each is a new snapshot for one node in which 50
 * endpoints have another weight. Per push, the run records the time from the control plane's
 * send (its response callback, just before the response is written) to the moment the selector's
 * new state is in place (the apply returned: the next pick reads it), and checks that each push
 * reached the selector as one delta of 50. Meanwhile one thread picks (pick and complete) by
 * zone from both selectors in turn, timing each; its latency p99.9 during pushes is compared with
 * idle. A third node ({@code control}) is served to a {@link RawAdsClient}, which ACKs and reads
 * nothing: pushes to it load the host as pushes to the clients do, less Ballast's read and apply.
 * After a warm-up (picks, and 10 pushes to each node, so that no phase runs code being compiled),
 * the run goes in rounds of three phases in turns, so that the host's noise falls on each alike:
 * idle, pushes to the clients, pushes to the control, each as long as {@code 2 * pushes / rounds}
 * pushes.
 *
 * <p>{@code java -cp benchmarks/target/benchmarks.jar dev.ballast.bench.discovery.XdsPushLatency
 * [pushes per protocol=30] [gapMs=300] [rounds=6]}
 */
public final class XdsPushLatency {

  private static final String CLUSTER = "orders";
  private static final int ZONES = 8;
  private static final int PER_ZONE = 1000;
  private static final int CHANGES = 50;
  private static final int WARM_UP = 10;

  private XdsPushLatency() {}

  public static void main(String[] args) throws Exception {
    int pushes = args.length > 0 ? Integer.parseInt(args[0]) : 30;
    long gapMs = args.length > 1 ? Long.parseLong(args[1]) : 300;
    int rounds = args.length > 2 ? Integer.parseInt(args[2]) : 6;
    if (pushes % rounds != 0) {
      throw new IllegalArgumentException("pushes " + pushes + " (expected: a multiple of the "
          + rounds + " rounds)");
    }
    SplittableRandom random = new SplittableRandom(42);
    int[] weights = new int[ZONES * PER_ZONE];
    for (int i = 0; i < weights.length; i++) {
      weights[i] = 1 + random.nextInt(10);
    }
    SimpleCache<String> cache = new SimpleCache<>(node -> node.getId());
    Sent sent = new Sent();
    int[][] current = {weights.clone(), weights.clone(), weights.clone()}; // as last set
    String[] nodes = {"sotw", "delta", "control"};
    for (String node : nodes) {
      cache.setSnapshot(node, snapshot("0", weights));
    }
    Server server = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
        .addService(new V3DiscoveryServer(sent, cache).getAggregatedDiscoveryServiceImpl())
        .build().start();
    Client[] clients = {
        new Client("sotw", false, server.getPort(), pushes),
        new Client("delta", true, server.getPort(), pushes)};
    RawAdsClient control = new RawAdsClient(server.getPort(), "control", CLUSTER);
    int[] versions = new int[nodes.length];
    try {
      for (Client c : clients) {
        while (c.feed.endpointCount() < weights.length) {
          Thread.sleep(10);
        }
      }
      control.responses.awaitMoreThan(0);
      ZonePicker picker = new ZonePicker(List.of(clients[0].selector, clients[1].selector),
          rounds);
      Thread t = new Thread(picker, "picker");
      t.setDaemon(true); // ends with the run, even a failed one
      t.start();
      // warm-up: picks, and pushes of each kind, so that no phase runs code still being compiled
      for (int k = 0; k < 3 * WARM_UP; k++) {
        push(cache, nodes[k % 3], ++versions[k % 3], current[k % 3], random,
            k % 3 < 2 ? clients[k % 3].applies.count : control.responses);
        Thread.sleep(gapMs);
      }
      // rounds of three phases of 2 * pushes / rounds pushes' time each, in turns, so that the
      // host's load falls on all three alike: idle, pushes to the clients, pushes to the control
      int perPhase = 2 * pushes / rounds;
      int[] done = new int[2];
      Sched[] sched = new Sched[3];
      long[] wall = new long[3];
      Arrays.fill(sched, new Sched(0, 0, 0, 0, Map.of()));
      for (int r = 0; r < rounds; r++) {
        for (int p = 0; p < 3; p++) {
          int phase = (r + p) % 3;
          picker.phase.set(picker.rounds[r][phase]);
          Sched start = Sched.of(picker.task);
          long phaseStart = System.nanoTime();
          for (int k = 0; k < perPhase; k++) {
            if (phase == 1) { // the clients, in turns
              Client c = clients[k % 2];
              int i = done[k % 2]++;
              long before = c.applies.count.get();
              long t0 = System.nanoTime();
              push(cache, c.node, ++versions[k % 2], current[k % 2], random, c.applies.count);
              c.record(i, before, t0, sent);
            } else if (phase == 2) {
              push(cache, "control", ++versions[2], current[2], random, control.responses);
            }
            Thread.sleep(gapMs);
          }
          picker.phase.set(null);
          wall[phase] += System.nanoTime() - phaseStart;
          sched[phase] = Sched.of(picker.task).since(start, sched[phase]);
        }
      }
      picker.stop.set(true);
      t.join();
      System.out.printf("load average: %s%n", Files.readString(Path.of("/proc/loadavg")).trim());
      System.out.printf("%d pushes per protocol in %d rounds, %d ms apart: %d endpoints, %d"
          + " reweighted in each, each one delta at the selector; after %d warm-up pushes per"
          + " client%n", pushes, rounds, gapMs, weights.length, CHANGES, WARM_UP);
      for (Client c : clients) {
        c.report();
      }
      picker.report(sched, wall, rounds * perPhase);
    } finally {
      for (Client c : clients) {
        c.feed.close();
      }
      control.close();
      server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
  }

  // sets a snapshot for the node that reweights CHANGES endpoints of w, and waits for its arrival
  private static void push(SimpleCache<String> cache, String node, int version, int[] w,
      SplittableRandom random, Applies.Counter arrivals) throws InterruptedException {
    Set<Integer> drawn = new HashSet<>();
    while (drawn.size() < CHANGES) {
      drawn.add(random.nextInt(w.length));
    }
    for (int i : drawn) {
      w[i] = w[i] % 10 + 1; // another weight, 1-10
    }
    long before = arrivals.get();
    cache.setSnapshot(node, snapshot(Integer.toString(version), w));
    arrivals.awaitMoreThan(before);
  }

  private static Snapshot snapshot(String version, int[] weights) {
    ClusterLoadAssignment.Builder cla = ClusterLoadAssignment.newBuilder()
        .setClusterName(CLUSTER);
    for (int z = 0; z < ZONES; z++) {
      LocalityLbEndpoints.Builder locality = LocalityLbEndpoints.newBuilder()
          .setLocality(Locality.newBuilder().setRegion("bench").setZone("zone-" + z))
          .setLoadBalancingWeight(UInt32Value.of(1));
      for (int e = 0; e < PER_ZONE; e++) {
        int i = z * PER_ZONE + e;
        locality.addLbEndpoints(LbEndpoint.newBuilder()
            .setEndpoint(io.envoyproxy.envoy.config.endpoint.v3.Endpoint.newBuilder()
                .setAddress(Address.newBuilder().setSocketAddress(SocketAddress.newBuilder()
                    .setAddress("10." + z + "." + (e >> 8) + "." + (e & 255))
                    .setPortValue(8080))))
            .setLoadBalancingWeight(UInt32Value.of(weights[i])));
      }
      cla.addEndpoints(locality);
    }
    return Snapshot.create(List.of(), List.of(cla.build()), List.of(), List.of(), List.of(),
        version);
  }

  private static double ms(long nanos) {
    return nanos / 1e6;
  }

  private static long at(long[] sorted, double quantile) {
    return sorted[(int) Math.ceil(sorted.length * quantile) - 1];
  }

  /** One client: a source speaking one protocol, its feed and its selector. */
  private static final class Client {
    final String node;
    final Timed source;
    final SubsetSelector<String> selector = SubsetSelector.<String>builder()
        .selectors(List.of(List.of("zone"))).fallbackPolicy(FallbackPolicy.ANY_ENDPOINT).build();
    final Applies applies = new Applies(EndpointSink.of(selector, Endpoint::address, n -> { }));
    final EndpointFeed feed;
    final long[] fromSend;
    final long[] fromSet;
    final long[] toSource;
    volatile int bytes;

    Client(String node, boolean delta, int port, int pushes) {
      this.node = node;
      this.source = new Timed(XdsSource.builder(XdsBootstrap.of("127.0.0.1:" + port, node),
          CLUSTER).delta(delta).build());
      this.feed = EndpointFeed.builder(source).start(applies);
      this.fromSend = new long[pushes];
      this.fromSet = new long[pushes];
      this.toSource = new long[pushes];
    }

    // records push i, set at t0 when the applies counted before
    void record(int i, long before, long t0, Sent sent) {
      long sentAt = sent.lastAt.get(node);
      fromSend[i] = applies.lastAt - sentAt;
      fromSet[i] = applies.lastAt - t0;
      toSource[i] = source.lastAt - sentAt;
      if (applies.count.get() != before + 1 || applies.lastUpserts != CHANGES) {
        throw new IllegalStateException(node + " push " + i + " reached the selector as "
            + (applies.count.get() - before) + " applies, the last of " + applies.lastUpserts
            + " upserts (expected: one delta of " + CHANGES + ")");
      }
      bytes = sent.lastBytes.get(node);
    }

    void report() {
      long[] s = sorted(fromSend);
      long[] set = sorted(fromSet);
      long[] src = sorted(toSource);
      long[] apply = new long[fromSend.length];
      for (int i = 0; i < apply.length; i++) {
        apply[i] = fromSend[i] - toSource[i];
      }
      Arrays.sort(apply);
      System.out.printf("%-5s (last response %d KB): send -> state visible to picks: median %.1f"
          + " ms, p99 %.1f ms; of which send -> the source's change read: median %.1f ms, p99"
          + " %.1f ms, and change -> visible (feed and selector): median %.1f ms, p99 %.1f ms;"
          + " snapshot set -> visible: median %.1f ms, p99 %.1f ms%n", node, bytes / 1024,
          ms(at(s, 0.5)), ms(at(s, 0.99)), ms(at(src, 0.5)), ms(at(src, 0.99)),
          ms(at(apply, 0.5)), ms(at(apply, 0.99)), ms(at(set, 0.5)), ms(at(set, 0.99)));
    }

    private static long[] sorted(long[] a) {
      long[] c = a.clone();
      Arrays.sort(c);
      return c;
    }
  }

  /** The control plane's callbacks: when it last sent a response to each node, and its size. */
  private static final class Sent implements DiscoveryServerCallbacks {
    final Map<String, Long> lastAt = new java.util.concurrent.ConcurrentHashMap<>();
    final Map<String, Integer> lastBytes = new java.util.concurrent.ConcurrentHashMap<>();

    @Override
    public void onV3StreamRequest(long streamId, DiscoveryRequest request) {}

    @Override
    public void onV3StreamDeltaRequest(long streamId, DeltaDiscoveryRequest request) {}

    @Override
    public void onV3StreamResponse(long streamId, DiscoveryRequest request,
        DiscoveryResponse response) {
      lastAt.put(request.getNode().getId(), System.nanoTime());
      lastBytes.put(request.getNode().getId(), response.getSerializedSize());
    }

    @Override
    public void onV3StreamDeltaResponse(long streamId, DeltaDiscoveryRequest request,
        DeltaDiscoveryResponse response) {
      lastAt.put(request.getNode().getId(), System.nanoTime());
      lastBytes.put(request.getNode().getId(), response.getSerializedSize());
    }
  }

  /** The source, recording when it last pushed its entries or a change. */
  private static final class Timed implements EndpointSource {
    final EndpointSource source;
    volatile long lastAt;

    Timed(EndpointSource source) {
      this.source = source;
    }

    @Override
    public void start(Listener l) {
      source.start(new Listener() {
        @Override
        public void onEntries(Map<String, String> entries) {
          lastAt = System.nanoTime();
          l.onEntries(entries);
        }

        @Override
        public void onChanges(Map<String, String> upserts, Collection<String> removedKeys) {
          lastAt = System.nanoTime();
          l.onChanges(upserts, removedKeys);
        }

        @Override
        public void onFailure(Throwable cause) {
          l.onFailure(cause);
        }
      });
    }

    @Override
    public String name() {
      return source.name();
    }

    @Override
    public void close() {
      source.close();
    }
  }
}
