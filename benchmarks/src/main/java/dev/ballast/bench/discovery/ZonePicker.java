package dev.ballast.bench.discovery;

import dev.ballast.core.Node;
import dev.ballast.core.subset.RequestLabels;
import dev.ballast.core.subset.SubsetSelector;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.HdrHistogram.Histogram;

/**
 * {@link XdsPushLatency}'s picking thread: picks (pick and complete) in a loop by zone ({@code
 * zone-0} to {@code zone-7}) from two selectors in turn, timing each into the histogram of the
 * phase set, if any.
 */
final class ZonePicker implements Runnable {
  static final String[] NAMES = {"idle", "pushes to the clients", "pushes to the control"};
  private static final int ZONES = 8;
  final List<SubsetSelector<String>> selectors;
  final RequestLabels[] probes = new RequestLabels[ZONES];
  final Histogram[] phases = new Histogram[NAMES.length];
  final AtomicReference<Histogram> phase = new AtomicReference<>();
  final AtomicBoolean stop = new AtomicBoolean();
  volatile Path task; // this thread's /proc/<pid>/task/<tid>

  ZonePicker(List<SubsetSelector<String>> selectors) {
    this.selectors = selectors;
    for (int z = 0; z < ZONES; z++) {
      probes[z] = RequestLabels.of(Map.of("zone", "zone-" + z));
    }
    for (int p = 0; p < phases.length; p++) {
      phases[p] = new Histogram(TimeUnit.SECONDS.toNanos(10), 3);
    }
  }

  @Override
  public void run() {
    try {
      task = Path.of("/proc/thread-self").toRealPath();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    int i = 0;
    while (!stop.get()) {
      SubsetSelector<String> selector = selectors.get(i & 1);
      RequestLabels labels = probes[(i++ >> 1) & (ZONES - 1)];
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

  // the histograms, with each phase's scheduler counts, wall time and pushes
  void report(Sched[] sched, long[] wall, int pushes) {
    for (int p = 0; p < phases.length; p++) {
      Histogram h = phases[p];
      long slow = h.getCountBetweenValues(10_000, h.getHighestTrackableValue());
      System.out.printf("picks, %s: %d; p50 %d ns, p99 %d ns, p99.9 %d ns, p99.99 %d ns, max"
          + " %.1f ms; %d of 10 us or more%n", NAMES[p], h.getTotalCount(),
          h.getValueAtPercentile(50), h.getValueAtPercentile(99),
          h.getValueAtPercentile(99.9), h.getValueAtPercentile(99.99), h.getMaxValue() / 1e6,
          slow);
      Sched s = sched[p];
      long others = s.processCpuNanos() - s.threadRunNanos();
      System.out.printf("  %.1f s: the picker on a CPU %.0f%% of it, preempted %d times, moved"
          + " %d times; the JVM's other threads %.2f cores (%.1f ms a push)%n", wall[p] / 1e9,
          100.0 * s.threadRunNanos() / wall[p], s.preemptions(), s.migrations(),
          (double) others / wall[p], others / 1e6 / pushes);
    }
    double idle = phases[0].getValueAtPercentile(99.9);
    System.out.printf("pick p99.9 against idle: during pushes to the clients %.2fx, to the"
        + " control %.2fx%n", phases[1].getValueAtPercentile(99.9) / idle,
        phases[2].getValueAtPercentile(99.9) / idle);
  }
}
