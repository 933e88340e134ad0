package dev.ballast.bench.grpc;

import io.grpc.EquivalentAddressGroup;
import io.grpc.LoadBalancer;
import io.grpc.Metadata;
import io.grpc.xds.shaded.com.github.xds.data.orca.v3.OrcaLoadReport;
import java.net.SocketAddress;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * Feeds a weighted round robin policy of {@link PickerBenchmark} per-call ORCA reports, as real
 * servers would in their trailers, until its weights are in force: subchannel i reports CPU
 * utilization 0.5 at {@code 100 × w_i} queries per second, w_i drawn from 1..10 (seed 42), so
 * that its A58 weight is {@code 200 × w_i}.
 */
final class ReportedWeights {

  private static final Metadata.Key<byte[]> ORCA =
      Metadata.Key.of("endpoint-load-metrics-bin", Metadata.BINARY_BYTE_MARSHALLER);

  private ReportedWeights() {}

  static void feed(PickerBenchmark b, List<EquivalentAddressGroup> groups) {
    SplittableRandom random = new SplittableRandom(42);
    Map<SocketAddress, Metadata> trailers = new HashMap<>();
    Map<SocketAddress, Integer> weights = new HashMap<>();
    for (EquivalentAddressGroup g : groups) {
      int w = 1 + random.nextInt(10);
      Metadata m = new Metadata();
      m.put(ORCA, OrcaLoadReport.newBuilder().setCpuUtilization(0.5)
          .setRpsFractional(100.0 * w).build().toByteArray());
      trailers.put(g.getAddresses().get(0), m);
      weights.put(g.getAddresses().get(0), w);
    }
    int n = groups.size();
    try {
      // three rounds of reports for every subchannel, each followed by an update period or more
      for (int round = 0; round < 3; round++) {
        for (int i = 0; i < n * 30; i++) {
          b.callWithTrailers(s -> trailers.get(address(s)));
        }
        Thread.sleep(250);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
    // the weights must be in force: the subchannels of weight 10 get several times the picks
    // of those of weight 1
    long heavy = 0;
    long light = 0;
    for (int i = 0; i < n * 100; i++) {
      int w = weights.get(address(b.callWithTrailers(s -> trailers.get(address(s)))
          .getSubchannel()));
      heavy += w == 10 ? 1 : 0;
      light += w == 1 ? 1 : 0;
    }
    if (heavy < 4 * light) {
      throw new IllegalStateException("weights not in force: " + heavy + " picks of weight 10, "
          + light + " of weight 1");
    }
  }

  private static SocketAddress address(LoadBalancer.Subchannel s) {
    return s.getAllAddresses().get(0).getAddresses().get(0);
  }
}
