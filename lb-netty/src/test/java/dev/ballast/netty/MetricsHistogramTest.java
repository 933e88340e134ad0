package dev.ballast.netty;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.netty.framed.FramedServer;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.config.MeterFilter;
import io.micrometer.core.instrument.distribution.CountAtBucket;
import io.micrometer.core.instrument.distribution.DistributionStatisticConfig;
import io.micrometer.core.instrument.distribution.HistogramSnapshot;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The latency timers publish no histogram by default (a scrape stays small); asked for with
 * Micrometer's {@code percentilesHistogram}, their histograms add up across processes (the same
 * buckets everywhere); no client-side percentiles unless the application asks Micrometer.
 */
class MetricsHistogramTest {

  private static final String[] TIMERS = {"ballast.client.latency", "ballast.client.calls"};

  /** Asks Micrometer for the ballast.client timers' histograms, as an application would. */
  private static MeterRegistry withHistograms(MeterRegistry registry) {
    registry.config().meterFilter(new MeterFilter() {
      @Override
      public DistributionStatisticConfig configure(Meter.Id id, DistributionStatisticConfig c) {
        return id.getName().startsWith("ballast.client.")
            ? DistributionStatisticConfig.builder().percentilesHistogram(true).build().merge(c)
            : c;
      }
    });
    return registry;
  }

  @Test
  void noHistogramByDefault() throws Exception {
    MeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    Map<String, HistogramSnapshot> snapshots;
    try (FramedServer server = FramedServer.start(FramedServer.echo())) {
      snapshots = calls(registry, server, 5);
    }
    for (String name : TIMERS) {
      assertThat(snapshots.get(name).histogramCounts()).as(name).isEmpty();
      assertThat(snapshots.get(name).count()).as(name).isEqualTo(5);
    }
  }

  /** Two clients, as two instances of a service, each with its own Prometheus registry. */
  @Test
  void histogramsOfTwoInstancesAddUpBucketByBucket() throws Exception {
    MeterRegistry first = withHistograms(new PrometheusMeterRegistry(PrometheusConfig.DEFAULT));
    MeterRegistry second = withHistograms(new PrometheusMeterRegistry(PrometheusConfig.DEFAULT));
    Map<String, HistogramSnapshot> firsts;
    Map<String, HistogramSnapshot> seconds;
    try (FramedServer fast = FramedServer.start(FramedServer.echo());
        FramedServer slow = FramedServer.start(
            FramedServer.delayed(Duration.ofMillis(30), FramedServer.echo()))) {
      firsts = calls(first, fast, 40);
      seconds = calls(second, slow, 10);
    }
    for (String name : TIMERS) {
      HistogramSnapshot a = firsts.get(name);
      HistogramSnapshot b = seconds.get(name);
      assertThat(a.histogramCounts()).as("%s buckets", name).hasSizeGreaterThan(10);
      assertThat(a.percentileValues()).as("%s client-side percentiles", name).isEmpty();
      // Same boundaries in both processes: the buckets can be summed, as Prometheus does.
      assertThat(bounds(a)).isEqualTo(bounds(b));
      CountAtBucket[] ca = a.histogramCounts();
      CountAtBucket[] cb = b.histogramCounts();
      double[] sum = new double[ca.length];
      for (int i = 0; i < ca.length; i++) {
        sum[i] = ca[i].count() + cb[i].count();
      }
      // Cumulative buckets: the last holds all 50 calls of both instances; none of the 10 slow
      // calls (each held 30 ms by its server) falls in a bucket below 30 ms.
      assertThat(sum[sum.length - 1]).as("%s calls", name).isEqualTo(50);
      int under30ms = lastBucketBelow(cb, TimeUnit.MILLISECONDS.toNanos(30));
      assertThat(cb[under30ms].count()).as("%s slow calls under 30 ms", name).isZero();
      assertThat(cb[cb.length - 1].count()).isEqualTo(10);
    }
  }

  @Test
  void clientSidePercentilesOnlyWhenTheApplicationAsksMicrometer() throws Exception {
    MeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    registry.config().meterFilter(new MeterFilter() {
      @Override
      public DistributionStatisticConfig configure(Meter.Id id, DistributionStatisticConfig c) {
        return id.getName().startsWith("ballast.client.")
            ? DistributionStatisticConfig.builder().percentiles(0.5, 0.99).build().merge(c)
            : c;
      }
    });
    Map<String, HistogramSnapshot> snapshots;
    try (FramedServer server = FramedServer.start(FramedServer.echo())) {
      snapshots = calls(registry, server, 20);
    }
    for (String name : TIMERS) {
      assertThat(snapshots.get(name).percentileValues()).as(name).hasSize(2);
    }
  }

  /** Makes n calls and returns both timers' snapshots (the client's meters go with it). */
  private static Map<String, HistogramSnapshot> calls(
      MeterRegistry registry, FramedServer server, int n) throws Exception {
    try (BallastClient<byte[], byte[]> client = BallastClient.framed().name("orders")
        .endpoints(List.of(server.endpoint())).meterRegistry(registry).build()) {
      for (int i = 0; i < n; i++) {
        client.call(new byte[] {1}).get(10, TimeUnit.SECONDS);
      }
      // A call's timer is recorded just after its future completes: wait for the last one.
      Timer calls = registry.get("ballast.client.calls").tag("outcome", "success").timer();
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (calls.count() < n && System.nanoTime() < deadline) {
        Thread.onSpinWait();
      }
      Map<String, HistogramSnapshot> snapshots = new HashMap<>();
      snapshots.put("ballast.client.calls", calls.takeSnapshot());
      // one endpoint per client: one latency timer
      snapshots.put("ballast.client.latency",
          registry.get("ballast.client.latency").timer().takeSnapshot());
      return snapshots;
    }
  }

  private static double[] bounds(HistogramSnapshot s) {
    return Arrays.stream(s.histogramCounts()).mapToDouble(CountAtBucket::bucket).toArray();
  }

  private static int lastBucketBelow(CountAtBucket[] buckets, long nanos) {
    int last = -1;
    for (int i = 0; i < buckets.length; i++) {
      if (buckets[i].bucket(TimeUnit.NANOSECONDS) < nanos) {
        last = i;
      }
    }
    return last;
  }
}
