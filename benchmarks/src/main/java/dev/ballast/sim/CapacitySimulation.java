package dev.ballast.sim;

import dev.ballast.core.Algorithm;
import dev.ballast.core.Balancer;
import dev.ballast.core.BalancerConfig;
import dev.ballast.core.Endpoint;
import dev.ballast.core.Node;
import dev.ballast.core.load.LoadReport;
import java.io.PrintStream;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.SplittableRandom;
import org.HdrHistogram.Histogram;

/**
 * The {@code capacity} scenario: four servers of capacities 1 : 1 : 2 : 4 (cores) serving
 * CPU-bound work (exponential service times, 10 ms of one core on average, first come first
 * served), Poisson arrivals at 45% of their total capacity (360 requests a second), one client,
 * 60 virtual seconds of which the last 40 are measured. Each server samples its utilization
 * (busy core time over its cores) and the queries it answered once a second, as lb-grpc-orca's
 * {@code ServerLoadReporting} does, and every answer carries the latest sample (ORCA's per-call
 * report), which the client feeds to the node ({@link Node#reportLoad}). Reports the maximum and
 * mean server utilization, their ratio (Dropbox's Robinhood measures max / mean CPU), each
 * server's utilization, and the latency percentiles, per policy, in one run.
 */
final class CapacitySimulation {

  static final int[] CORES = {1, 1, 2, 4};
  static final double SERVICE_MS = 10;
  static final double LOAD = 0.45;
  static final long DURATION = 60_000_000_000L;
  static final long MEASURE_FROM = 20_000_000_000L;
  static final long SAMPLE = 1_000_000_000L;
  static final List<Algorithm> POLICIES = List.of(Algorithm.ROUND_ROBIN, Algorithm.LEAST_LOADED,
      Algorithm.P2C_PEAK_EWMA, Algorithm.WEIGHTED_ROUND_ROBIN, Algorithm.P2C_UTILIZATION);

  private CapacitySimulation() {}

  /** Whether the command line asks for this scenario. */
  static boolean asked(String[] args) {
    for (int i = 0; i < args.length; i++) {
      if (args[i].equals("--scenario=capacity")
          || args[i].equals("--scenario") && i + 1 < args.length
          && args[i + 1].equals("capacity")) {
        return true;
      }
    }
    return false;
  }

  /** Runs the scenario from the command line ({@code --seed} only); returns the exit status. */
  static int run(String[] args, PrintStream out) throws java.io.IOException {
    long[] seed = {1};
    Flags.forEach(List.of(args), Set.of(), (flag, value) -> {
      switch (flag) {
        case "--scenario" -> { }
        case "--seed" -> seed[0] = Flags.parseLong(flag, value);
        default -> throw new IllegalArgumentException(
            "flag: " + flag + " (expected for the capacity scenario: --seed)");
      }
    });
    out.print(report(seed[0]));
    return 0;
  }

  /** Runs every policy from the same seed and returns the table. */
  static String report(long seed) {
    StringBuilder sb = new StringBuilder(String.format(Locale.ROOT,
        "scenario capacity: servers of 1, 1, 2, 4 cores, CPU-bound work of %.0f ms per request"
            + " (exponential), Poisson arrivals at %.0f%% of capacity (%.0f/s), one client,"
            + " reports sampled each second; measured from %.0f s to %.0f s; seed %d%n",
        SERVICE_MS, LOAD * 100, rate(), MEASURE_FROM / 1e9, DURATION / 1e9, seed));
    sb.append(String.format(Locale.ROOT, "%-22s %10s %9s %9s %-27s %9s %9s %9s%n", "balancer",
        "max/mean", "max util", "mean util", "utilization per server", "p50 ms", "p99 ms",
        "max ms"));
    for (Algorithm a : POLICIES) {
      Outcome o = run(a, seed);
      sb.append(String.format(Locale.ROOT, "%-22s %10.3f %9.3f %9.3f %-27s %9.1f %9.1f %9.1f%n",
          a.id(), o.max() / o.mean(), o.max(), o.mean(), o.perServer(),
          o.latency().getValueAtPercentile(50) / 1000.0,
          o.latency().getValueAtPercentile(99) / 1000.0, o.latency().getMaxValue() / 1000.0));
    }
    return sb.toString();
  }

  static double rate() {
    int cores = 0;
    for (int c : CORES) {
      cores += c;
    }
    return LOAD * cores * 1000 / SERVICE_MS;
  }

  /** One policy's outcome: the servers' utilization over the measured time, and latencies. */
  record Outcome(double[] utilization, Histogram latency) {
    double max() {
      double m = 0;
      for (double u : utilization) {
        m = Math.max(m, u);
      }
      return m;
    }

    double mean() {
      double s = 0;
      for (double u : utilization) {
        s += u;
      }
      return s / utilization.length;
    }

    String perServer() {
      StringBuilder sb = new StringBuilder();
      for (double u : utilization) {
        sb.append(sb.length() == 0 ? "" : " ").append(String.format(Locale.ROOT, "%.2f", u));
      }
      return sb.toString();
    }
  }

  /** A server: its cores, its queue, its busy time and its latest sampled report. */
  private static final class Server {
    final int cores;
    final SplittableRandom random;
    final ArrayDeque<Waiting> queue = new ArrayDeque<>();
    int busy;
    double busyNanos; // since the last sample
    double measuredBusy; // within the measured time
    long last; // when busyNanos was last brought up to date
    long answered; // since the last sample
    LoadReport report = LoadReport.EMPTY;

    Server(int cores, SplittableRandom random) {
      this.cores = cores;
      this.random = random;
    }

    void advance(long now) {
      double d = (double) busy * (now - last);
      busyNanos += d;
      long from = Math.max(last, MEASURE_FROM);
      long to = Math.min(now, DURATION);
      if (to > from) {
        measuredBusy += (double) busy * (to - from);
      }
      last = now;
    }
  }

  private record Waiting(long arrival, Node<Integer> node) {}

  private record Event(long time, int type, int server, long id, Node<Integer> node,
      long arrival) implements Comparable<Event> {
    @Override
    public int compareTo(Event o) {
      int c = Long.compare(time, o.time);
      return c != 0 ? c : Long.compare(id, o.id);
    }
  }

  private static final int ARRIVAL = 0;
  private static final int DONE = 1;
  private static final int SAMPLE_ALL = 2;

  static Outcome run(Algorithm algorithm, long seed) {
    SplittableRandom master = new SplittableRandom(seed);
    SplittableRandom arrivals = master.split();
    long[] now = {0};
    Balancer<Integer> balancer = algorithm.create(BalancerConfig.builder()
        .ticker(() -> now[0]).random(master.split()).build());
    List<Endpoint> endpoints = new ArrayList<>();
    Server[] servers = new Server[CORES.length];
    for (int i = 0; i < CORES.length; i++) {
      endpoints.add(Endpoint.of("10.0.0." + (i + 1), 8080));
      servers[i] = new Server(CORES[i], master.split());
    }
    balancer.update(endpoints, endpoints::indexOf);
    Histogram latency = Result.newHistogram();
    PriorityQueue<Event> events = new PriorityQueue<>();
    long[] ids = {0};
    events.add(new Event(0, ARRIVAL, -1, ids[0]++, null, 0));
    events.add(new Event(SAMPLE, SAMPLE_ALL, -1, ids[0]++, null, 0));
    double meanGap = 1e9 / rate();
    while (!events.isEmpty()) {
      Event e = events.poll();
      now[0] = e.time();
      switch (e.type()) {
        case ARRIVAL -> {
          long next = e.time() + Math.round(-Math.log(1 - arrivals.nextDouble()) * meanGap);
          if (next < DURATION) {
            events.add(new Event(next, ARRIVAL, -1, ids[0]++, null, 0));
          }
          Node<Integer> node = balancer.pick();
          Server s = servers[node.value()];
          s.advance(now[0]);
          if (s.busy < s.cores) {
            s.busy++;
            events.add(new Event(now[0] + service(s), DONE, node.value(), ids[0]++, node,
                now[0]));
          } else {
            s.queue.add(new Waiting(now[0], node));
          }
        }
        case DONE -> {
          Server s = servers[e.server()];
          s.advance(now[0]);
          s.answered++;
          long took = now[0] - e.arrival();
          e.node().complete(took, true);
          e.node().reportLoad(s.report); // the answer carries the server's latest sample
          if (e.arrival() >= MEASURE_FROM) {
            latency.recordValue(Math.max(1, took / 1000));
          }
          Waiting waiting = s.queue.poll();
          if (waiting == null) {
            s.busy--;
          } else {
            events.add(new Event(now[0] + service(s), DONE, e.server(), ids[0]++,
                waiting.node(), waiting.arrival()));
          }
        }
        default -> {
          for (Server s : servers) {
            s.advance(now[0]);
            double seconds = SAMPLE / 1e9;
            s.report = LoadReport.of(s.busyNanos / (s.cores * (double) SAMPLE),
                s.answered / seconds, 0);
            s.busyNanos = 0;
            s.answered = 0;
          }
          if (now[0] + SAMPLE < DURATION) {
            events.add(new Event(now[0] + SAMPLE, SAMPLE_ALL, -1, ids[0]++, null, 0));
          }
        }
      }
    }
    double[] utilization = new double[servers.length];
    for (int i = 0; i < servers.length; i++) {
      servers[i].advance(Math.max(now[0], DURATION));
      utilization[i] = servers[i].measuredBusy / (servers[i].cores * (double) (DURATION
          - MEASURE_FROM));
    }
    return new Outcome(utilization, latency);
  }

  private static long service(Server s) {
    return Math.round(-Math.log(1 - s.random.nextDouble()) * SERVICE_MS * 1e6);
  }
}
