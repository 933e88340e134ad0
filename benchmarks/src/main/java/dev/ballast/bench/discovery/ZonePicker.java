package dev.ballast.bench.discovery;

import dev.ballast.core.Node;
import dev.ballast.core.subset.RequestLabels;
import dev.ballast.core.subset.SubsetSelector;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.Arrays;
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
  final Histogram[][] rounds; // by round and phase
  final AtomicReference<Histogram> phase = new AtomicReference<>();
  final AtomicBoolean stop = new AtomicBoolean();
  volatile Path task; // this thread's /proc/<pid>/task/<tid>

  ZonePicker(List<SubsetSelector<String>> selectors, int rounds) {
    this.selectors = selectors;
    for (int z = 0; z < ZONES; z++) {
      probes[z] = RequestLabels.of(Map.of("zone", "zone-" + z));
    }
    this.rounds = new Histogram[rounds][NAMES.length];
    for (Histogram[] round : this.rounds) {
      for (int p = 0; p < round.length; p++) {
        round[p] = new Histogram(TimeUnit.SECONDS.toNanos(10), 3);
      }
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
      timedPick(selector, labels, phase);
    }
  }

  // the histograms, with each phase's scheduler counts, wall time and pushes
  void report(Sched[] sched, long[] wall, int pushes) {
    Histogram[] phases = new Histogram[NAMES.length];
    for (int p = 0; p < phases.length; p++) {
      phases[p] = new Histogram(TimeUnit.SECONDS.toNanos(10), 3);
      for (Histogram[] round : rounds) {
        phases[p].add(round[p]);
      }
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
      StringBuilder names = new StringBuilder("  ms a push by thread:");
      s.byName().forEach((name, nanos) -> {
        if (nanos >= 100_000L * pushes && !name.equals("picker")) { // 0.1 ms a push or more
          names.append(String.format(" %s %.1f;", name, nanos / 1e6 / pushes));
        }
      });
      System.out.println(names);
    }
    double idle = phases[0].getValueAtPercentile(99.9);
    System.out.printf("pick p99.9 against idle: during pushes to the clients %.2fx, to the"
        + " control %.2fx%n", phases[1].getValueAtPercentile(99.9) / idle,
        phases[2].getValueAtPercentile(99.9) / idle);
    // each round's own ratios: a burst of the host's in one phase moves one round's only
    double[][] ratios = new double[2][rounds.length];
    for (int r = 0; r < rounds.length; r++) {
      double roundIdle = rounds[r][0].getValueAtPercentile(99.9);
      ratios[0][r] = rounds[r][1].getValueAtPercentile(99.9) / roundIdle;
      ratios[1][r] = rounds[r][2].getValueAtPercentile(99.9) / roundIdle;
    }
    System.out.printf("each round's: to the clients %s, median %.2fx; to the control %s, median"
        + " %.2fx%n", format(ratios[0]), median(ratios[0]), format(ratios[1]),
        median(ratios[1]));
  }

  /**
   * Picks by {@code labels} and completes the call, recording the time both took in the phase's
   * histogram, if a phase is on.
   */
  static void timedPick(SubsetSelector<String> selector, RequestLabels labels,
      AtomicReference<Histogram> phase) {
    long t0 = System.nanoTime();
    Node<String> n = selector.pick(labels);
    n.complete(1_000_000, true);
    long t = System.nanoTime() - t0;
    Histogram h = phase.get();
    if (h != null) {
      h.recordValue(Math.min(t, h.getHighestTrackableValue()));
    }
  }

  private static List<String> format(double[] ratios) {
    return Arrays.stream(ratios).mapToObj(x -> String.format("%.2f", x)).toList();
  }

  private static double median(double[] values) {
    double[] sorted = values.clone();
    Arrays.sort(sorted);
    int n = sorted.length;
    return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  }
}
