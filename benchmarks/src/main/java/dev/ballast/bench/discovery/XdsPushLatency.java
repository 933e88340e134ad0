package dev.ballast.bench.discovery;

import com.google.protobuf.UInt32Value;
import dev.ballast.core.Endpoint;
import dev.ballast.core.Node;
import dev.ballast.core.source.EndpointFeed;
import dev.ballast.core.source.EndpointSink;
import dev.ballast.core.source.EndpointSource;
import dev.ballast.core.subset.FallbackPolicy;
import dev.ballast.core.subset.RequestLabels;
import dev.ballast.core.subset.SubsetSelector;
import dev.ballast.discovery.xds.XdsBootstrap;
import dev.ballast.discovery.xds.XdsSource;
import io.envoyproxy.controlplane.cache.v3.SimpleCache;
import io.envoyproxy.controlplane.cache.v3.Snapshot;
import io.envoyproxy.controlplane.server.V3DiscoveryServer;
import io.envoyproxy.envoy.config.core.v3.Address;
import io.envoyproxy.envoy.config.core.v3.Locality;
import io.envoyproxy.envoy.config.core.v3.SocketAddress;
import io.envoyproxy.envoy.config.endpoint.v3.ClusterLoadAssignment;
import io.envoyproxy.envoy.config.endpoint.v3.LbEndpoint;
import io.envoyproxy.envoy.config.endpoint.v3.LocalityLbEndpoints;
import io.grpc.Server;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.HdrHistogram.Histogram;

/**
 * {@link EtcdPushLatency}'s xDS twin: 8000 endpoints of one cluster in 8 localities (zones) of
 * 1000, weights 1-10, served by java-control-plane's server (started here on 127.0.0.1, as the
 * tests do); a client's {@link SubsetSelector} (subsets by zone) follows them through {@link
 * XdsSource} (one ADS stream, State of the World) and {@link EndpointFeed}. Each push is a new
 * snapshot in which 50 endpoints have another weight (the control plane sends the whole
 * resource, 8000 endpoints, as SotW does); the run reports, over the pushes, the time from just
 * before the snapshot is set to the moment the selector's new state is in place (the apply
 * returned: the next pick reads it), and checks that each push reached the selector as one delta
 * of 50. Meanwhile one thread picks (pick and complete) by zone; its latency p99.9 during pushes
 * is compared with an idle phase of the same length.
 *
 * <p>{@code java -cp benchmarks/target/benchmarks.jar dev.ballast.bench.discovery.XdsPushLatency
 * [pushes=30] [gapMs=300]}
 */
public final class XdsPushLatency {

  private static final String NODE = "bench";
  private static final String CLUSTER = "orders";
  private static final int ZONES = 8;
  private static final int PER_ZONE = 1000;

  private XdsPushLatency() {}

  public static void main(String[] args) throws Exception {
    int pushes = args.length > 0 ? Integer.parseInt(args[0]) : 30;
    long gapMs = args.length > 1 ? Long.parseLong(args[1]) : 300;
    SplittableRandom random = new SplittableRandom(42);
    int[] weights = new int[ZONES * PER_ZONE];
    for (int i = 0; i < weights.length; i++) {
      weights[i] = 1 + random.nextInt(10);
    }
    SimpleCache<String> cache = new SimpleCache<>(node -> node.getId());
    cache.setSnapshot(NODE, snapshot("0", weights));
    Server server = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
        .addService(new V3DiscoveryServer(cache).getAggregatedDiscoveryServiceImpl())
        .build().start();
    try {
      SubsetSelector<String> selector = SubsetSelector.<String>builder()
          .selectors(List.of(List.of("zone"))).fallbackPolicy(FallbackPolicy.ANY_ENDPOINT)
          .build();
      Applies applies = new Applies(EndpointSink.of(selector, Endpoint::address, n -> { }));
      Timed source = new Timed(XdsSource.builder(
          XdsBootstrap.of("127.0.0.1:" + server.getPort(), NODE), CLUSTER).build());
      try (EndpointFeed feed = EndpointFeed.builder(source).start(applies)) {
        while (feed.endpointCount() < weights.length) {
          Thread.sleep(10);
        }
        RequestLabels[] probes = new RequestLabels[ZONES];
        for (int z = 0; z < ZONES; z++) {
          probes[z] = RequestLabels.of(Map.of("zone", "zone-" + z));
        }
        Picker picker = new Picker(selector, probes);
        Thread t = new Thread(picker, "picker");
        t.start();
        Thread.sleep(1000); // warm-up
        picker.phase.set(picker.idle);
        Thread.sleep(pushes * gapMs);
        picker.phase.set(picker.pushing);
        long[] latencies = new long[pushes];
        long[] received = new long[pushes];
        for (int k = 0; k < pushes; k++) {
          java.util.Set<Integer> drawn = new java.util.HashSet<>();
          while (drawn.size() < 50) {
            drawn.add(random.nextInt(weights.length));
          }
          for (int i : drawn) {
            weights[i] = weights[i] % 10 + 1; // another weight, 1-10
          }
          long before = applies.count.get();
          long t0 = System.nanoTime();
          cache.setSnapshot(NODE, snapshot(Integer.toString(k + 1), weights));
          while (applies.count.get() == before) {
            Thread.onSpinWait();
          }
          latencies[k] = applies.lastAt - t0;
          received[k] = source.lastAt - t0;
          if (applies.count.get() != before + 1 || applies.lastUpserts != 50) {
            throw new IllegalStateException("push " + k + " reached the selector as "
                + (applies.count.get() - before) + " applies, the last of "
                + applies.lastUpserts + " upserts (expected: one delta of 50)");
          }
          Thread.sleep(gapMs);
        }
        picker.phase.set(null);
        picker.stop.set(true);
        t.join();
        Arrays.sort(latencies);
        Arrays.sort(received);
        System.out.printf("load average: %s%n", Files.readString(Path.of("/proc/loadavg")).trim());
        System.out.printf("pushes: %d snapshots of %d endpoints, 50 reweighted in each, each one"
            + " delta%n", pushes, weights.length);
        System.out.printf("snapshot set -> state visible to picks: median %.1f ms, p99 %.1f ms, "
            + "max %.1f ms%n", ms(latencies[pushes / 2]),
            ms(latencies[(int) Math.ceil(pushes * 0.99) - 1]), ms(latencies[pushes - 1]));
        System.out.printf("  of which snapshot set -> the source's entries read (sent, parsed, "
            + "checked): median %.1f ms, p99 %.1f ms%n", ms(received[pushes / 2]),
            ms(received[(int) Math.ceil(pushes * 0.99) - 1]));
        double idle = picker.idle.getValueAtPercentile(99.9);
        double busy = picker.pushing.getValueAtPercentile(99.9);
        System.out.printf("pick p99.9: idle %.0f ns (%d picks), during pushes %.0f ns (%d picks):"
            + " %.2fx%n", idle, picker.idle.getTotalCount(), busy,
            picker.pushing.getTotalCount(), busy / idle);
      }
    } finally {
      server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
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

  /** The source, recording when it last pushed its entries. */
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

  /** Picks in a loop, timing each pick and complete into the histogram of the phase. */
  private static final class Picker implements Runnable {
    final SubsetSelector<String> selector;
    final RequestLabels[] probes;
    final Histogram idle = new Histogram(TimeUnit.SECONDS.toNanos(1), 3);
    final Histogram pushing = new Histogram(TimeUnit.SECONDS.toNanos(1), 3);
    final AtomicReference<Histogram> phase = new AtomicReference<>();
    final AtomicBoolean stop = new AtomicBoolean();

    Picker(SubsetSelector<String> selector, RequestLabels[] probes) {
      this.selector = selector;
      this.probes = probes;
    }

    @Override
    public void run() {
      int i = 0;
      while (!stop.get()) {
        RequestLabels labels = probes[i++ & (ZONES - 1)];
        long t0 = System.nanoTime();
        Node<String> n = selector.pick(labels);
        n.complete(1_000_000, true);
        long t = System.nanoTime() - t0;
        Histogram h = phase.get();
        if (h != null) {
          h.recordValue(Math.min(t, h.getHighestTrackableValue()));
        }
      }
    }
  }
}
