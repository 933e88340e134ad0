package dev.ballast.core.loadaware;

import static dev.ballast.core.Fixtures.endpoints;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.core.BalancerConfig;
import dev.ballast.core.Endpoint;
import dev.ballast.core.Fixtures.ManualTicker;
import dev.ballast.core.Node;
import dev.ballast.core.load.EndpointLoadMetrics;
import dev.ballast.core.load.LoadReport;
import dev.ballast.core.loadaware.ReportedLoad.ReportNode;
import java.util.List;
import java.util.PriorityQueue;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * {@link P2cUtilization} against servers whose reports are wrong: one that reports itself idle
 * while it answers 20 times slower than the others, and one that sends garbage. A closed loop of
 * callers on a manual clock, each call taking its server's latency, every server reporting once
 * a simulated second: deterministic, no sleeps.
 */
class P2cUtilizationTest {

  private static final long MS = 1_000_000L;
  private static final int SERVERS = 4;

  private final ManualTicker ticker = new ManualTicker();

  private P2cUtilization<Integer> balancer() {
    P2cUtilization<Integer> b = new P2cUtilization<>(BalancerConfig.builder().ticker(ticker)
        .random(new SplittableRandom(7)).build());
    List<Endpoint> es = endpoints(1, 1, 1, 1);
    b.update(es, es::indexOf);
    return b;
  }

  /**
   * Runs {@code concurrency} callers for {@code seconds} simulated seconds; server i answers in
   * {@code latencyMs[i]} and reports {@code reports[i]} each second. Returns the calls per server.
   */
  private int[] run(P2cUtilization<Integer> b, int concurrency, int seconds, long[] latencyMs,
      LoadReport[] reports) {
    int[] calls = new int[SERVERS];
    List<Node<Integer>> nodes = b.nodes();
    // calls in flight: {time it ends, server}
    PriorityQueue<long[]> inFlight = new PriorityQueue<>((x, y) -> Long.compare(x[0], y[0]));
    long end = ticker.nanoTime() + seconds * 1_000 * MS;
    long nextReport = ticker.nanoTime();
    while (ticker.nanoTime() < end) {
      if (ticker.nanoTime() >= nextReport) {
        for (int i = 0; i < SERVERS; i++) {
          nodes.get(i).reportLoad(reports[i]);
        }
        nextReport += 1_000 * MS;
      }
      while (inFlight.size() < concurrency) {
        int i = b.pick().value();
        calls[i]++;
        inFlight.add(new long[] {ticker.nanoTime() + latencyMs[i] * MS, i});
      }
      long[] done = inFlight.poll();
      ticker.advanceNanos(Math.max(0, Math.min(done[0], nextReport) - ticker.nanoTime()));
      if (ticker.nanoTime() < done[0]) { // a report is due first
        inFlight.add(done);
        continue;
      }
      nodes.get((int) done[1]).complete(latencyMs[(int) done[1]] * MS, true);
    }
    return calls;
  }

  private static double share(int[] calls, int i) {
    int total = 0;
    for (int c : calls) {
      total += c;
    }
    return (double) calls[i] / total;
  }

  @Test
  void aServerReportingItselfIdleWhileTwentyTimesSlowerGetsABoundedShare() {
    LoadReport honest = LoadReport.of(0.5, 100, 0);
    LoadReport liar = LoadReport.of(1e-6, 100, 0); // a capacity 500,000 times the others'
    long[] latency = {200, 10, 10, 10};
    LoadReport[] reports = {liar, honest, honest, honest};
    for (int concurrency : new int[] {1, 8, 32}) {
      int[] calls = run(balancer(), concurrency, 60, latency, reports);
      assertThat(share(calls, 0)).as("the liar's share at %d in flight, calls %s",
          concurrency, java.util.Arrays.toString(calls)).isLessThan(0.05);
    }
  }

  @Test
  void aReportWithAGarbageValueIsNoReport() {
    P2cUtilization<Integer> b = balancer();
    Node<Integer> sender = b.nodes().get(3);
    sender.reportLoad(LoadReport.of(0.5, 100, 0));
    double capacity = ReportNode.of(sender).capacity;
    LoadReport garbage = EndpointLoadMetrics.parse(
        "TEXT cpu_utilization=NaN, rps_fractional=1e400");
    sender.reportLoad(garbage);
    assertThat(b.rejectedValues()).as("NaN and an infinite rate").isEqualTo(2);
    assertThat(ReportNode.of(sender).capacity).as("the previous report stands").isEqualTo(capacity);

    // a server that sends only garbage is a server without reports: the share of its latency
    P2cUtilization<Integer> fresh = balancer();
    LoadReport honest = LoadReport.of(0.5, 100, 0);
    int[] calls = run(fresh, 8, 10, new long[] {10, 10, 10, 10},
        new LoadReport[] {honest, honest, honest, garbage});
    assertThat(share(calls, 3)).as("calls %s", java.util.Arrays.toString(calls))
        .isGreaterThan(0.15);
    assertThat(fresh.rejectedValues()).isEqualTo(20);
  }
}
