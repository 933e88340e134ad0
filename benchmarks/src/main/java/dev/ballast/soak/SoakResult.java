package dev.ballast.soak;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * What a soak run measured, the checks it makes, and its table.
 *
 * @param config the run's settings
 * @param sides the calls of each side
 * @param quiet whether every started call ended within 20 s of the load's end
 * @param leftovers the lb-netty client's pool permits, pending picks, pending acquires and calls
 *     in flight once the calls ended
 * @param silent the framed endpoints (not ejected) that answered none of 200 calls sent after
 *     the chaos, with their stats
 * @param chaos what the chaos loop did, by kind
 * @param leaks Netty's LEAK reports
 * @param heapMiB the heap's floor high-water mark
 * @param directMiB direct memory's high-water mark
 * @param meanInFlight calls in flight on average after the first 5 s
 * @param minInFlight the fewest calls in flight at a sample after the first 5 s
 * @param loadBefore the machine's load average at the start
 * @param loadAfter the machine's load average at the end
 * @param cpuSeconds CPU time the process used during the run (its servers included)
 */
record SoakResult(Soak.Config config, List<Tally> sides, boolean quiet, long[] leftovers,
    List<String> silent, Map<String, Integer> chaos, List<String> leaks, long heapMiB,
    long directMiB, long meanInFlight, long minInFlight, double loadBefore, double loadAfter,
    double cpuSeconds) {

  /** Each failed check, named; empty when the run passed. */
  List<String> failures() {
    List<String> f = new ArrayList<>();
    for (Tally t : sides) {
      if (t.started() != t.ended()) {
        f.add(t.name + ": " + t.started() + " calls started, " + t.ended() + " ended");
      }
      if (t.late() != 0) {
        f.add(t.name + ": " + t.late() + " calls ended more than 1 s past their deadline");
      }
    }
    if (!quiet) {
      f.add("calls still in flight 20 s after the load stopped");
    }
    if (leftovers[0] + leftovers[1] + leftovers[2] + leftovers[3] != 0) {
      f.add("left in the pools: permits " + leftovers[0] + ", pending " + leftovers[1]
          + ", pending acquires " + leftovers[2] + ", calls in flight " + leftovers[3]);
    }
    if (!silent.isEmpty()) {
      f.add("framed endpoints answering nothing after the chaos: " + silent);
    }
    if (!leaks.isEmpty()) {
      f.add(leaks.size() + " LEAK reports, the first: " + leaks.get(0));
    }
    if (heapMiB > config.heapBoundMiB()) {
      f.add("heap floor " + heapMiB + " MiB over its bound " + config.heapBoundMiB() + " MiB");
    }
    if (directMiB > config.directBoundMiB()) {
      f.add("direct memory " + directMiB + " MiB over its bound " + config.directBoundMiB()
          + " MiB");
    }
    chaos.forEach((k, v) -> {
      if (k.contains("ACCEPTED")) {
        f.add(k + ": " + v);
      }
    });
    return f;
  }

  /** Whether every check held. */
  boolean passed() {
    return failures().isEmpty();
  }

  /** Prints the table (Markdown) and the verdict. */
  void print(PrintStream out) {
    out.println(Soak.format("Soak: %d s, seed %d, load average %.1f at the start, %.1f at the end;"
        + " %.0f s of CPU used", config.duration().toSeconds(), config.seed(), loadBefore,
        loadAfter, cpuSeconds));
    out.println();
    out.println("| side | calls started | calls ended | ended > 1 s past deadline"
        + " | worst past deadline | outcomes |");
    out.println("|---|---:|---:|---:|---:|---|");
    for (Tally t : sides) {
      StringBuilder o = new StringBuilder();
      t.outcomes().forEach((k, v) -> o.append(o.length() == 0 ? "" : ", ").append(k)
          .append(' ').append(v));
      out.println(Soak.format("| %s | %d | %d | %d | %d ms | %s |", t.name, t.started(),
          t.ended(), t.late(), t.worstOverrunMillis(), o));
    }
    out.println();
    out.println("| check | value | bound |");
    out.println("|---|---:|---:|");
    out.println(Soak.format("| calls in flight after 5 s (mean / least) | %d / %d | target %d |",
        meanInFlight, minInFlight, config.framedInFlight() + config.grpcInFlight()));
    out.println(Soak.format("| pool permits / pending / pending acquires / calls at the end"
        + " | %d / %d / %d / %d | 0 |", leftovers[0], leftovers[1], leftovers[2], leftovers[3]));
    out.println(Soak.format("| framed endpoints (not ejected) answering nothing after the chaos"
        + " | %d | 0 |",
        silent.size()));
    out.println(Soak.format("| LEAK reports (paranoid) | %d | 0 |", leaks.size()));
    out.println(Soak.format("| heap floor high-water | %d MiB | %d MiB |", heapMiB,
        config.heapBoundMiB()));
    out.println(Soak.format("| direct memory high-water | %d MiB | %d MiB |", directMiB,
        config.directBoundMiB()));
    out.println();
    StringBuilder c = new StringBuilder("Chaos: ");
    chaos.forEach((k, v) -> c.append(k).append(' ').append(v).append("; "));
    out.println(c);
    List<String> f = failures();
    out.println(f.isEmpty() ? "PASSED" : "FAILED: " + String.join("; ", f));
  }

  /** Gathers a result. */
  static final class Builder {
    private final Soak.Config config;
    private List<Tally> sides = List.of();
    private boolean quiet;
    private long[] leftovers = new long[4];
    private List<String> silent = List.of();
    private Map<String, Integer> chaos = Map.of();
    private List<String> leaks = List.of();
    private long heapMiB;
    private long directMiB;
    private long inFlightSum;
    private long inFlightSamples;
    private long minInFlight = Long.MAX_VALUE;
    private double loadBefore;
    private double loadAfter;
    private double cpuSeconds;

    Builder(Soak.Config config) {
      this.config = config;
    }

    Builder inFlight(long n) {
      inFlightSum += n;
      inFlightSamples++;
      minInFlight = Math.min(minInFlight, n);
      return this;
    }

    Builder sides(Tally... t) {
      sides = List.of(t);
      return this;
    }

    Builder quiet(boolean q) {
      quiet = q;
      return this;
    }

    Builder leftovers(long[] l) {
      leftovers = l.clone();
      return this;
    }

    Builder silent(List<String> s) {
      silent = List.copyOf(s);
      return this;
    }

    Builder chaos(Map<String, Integer> c) {
      chaos = Map.copyOf(c);
      return this;
    }

    Builder leaks(List<String> l) {
      leaks = List.copyOf(l);
      return this;
    }

    Builder memory(long heap, long direct) {
      heapMiB = heap;
      directMiB = direct;
      return this;
    }

    Builder cpuSeconds(double s) {
      cpuSeconds = s;
      return this;
    }

    Builder load(double before, double after) {
      loadBefore = before;
      loadAfter = after;
      return this;
    }

    SoakResult build() {
      return new SoakResult(config, sides, quiet, leftovers, silent,
          new java.util.TreeMap<>(chaos),
          leaks, heapMiB, directMiB, inFlightSamples == 0 ? 0 : inFlightSum / inFlightSamples,
          inFlightSamples == 0 ? 0 : minInFlight, loadBefore, loadAfter, cpuSeconds);
    }
  }
}
