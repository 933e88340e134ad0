package dev.ballast.bench.discovery;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.DirectoryStream;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;

/**
 * What Linux's scheduler counted at one moment (from {@code /proc}) for one thread and for the
 * whole process: the thread's time on a CPU, the times it was preempted (involuntary switches)
 * and moved to another CPU, and the process's CPU time, all threads. Differences of two make a
 * phase's figures.
 *
 * @param threadRunNanos the thread's time on a CPU
 * @param preemptions the thread's involuntary context switches
 * @param migrations the thread's moves to another CPU
 * @param processCpuNanos the process's user and system time, every thread
 * @param byName the user and system time of the process's live threads by name (Linux keeps 15
 *     characters of it), those of one name but for a number together
 */
record Sched(long threadRunNanos, long preemptions, long migrations, long processCpuNanos,
    Map<String, Long> byName) {

  private static final long NANOS_PER_TICK = 10_000_000; // USER_HZ 100, as on every Linux

  /** The counts now, for the thread whose {@code /proc/<pid>/task/<tid>} directory is given. */
  static Sched of(Path task) {
    try {
      long run = 0;
      long preempted = 0;
      long migrated = 0;
      for (String line : Files.readAllLines(task.resolve("sched"))) {
        String[] kv = line.split(":");
        if (kv.length != 2) {
          continue;
        }
        switch (kv[0].trim()) {
          case "se.sum_exec_runtime" -> run = (long) (Double.parseDouble(kv[1].trim()) * 1e6);
          case "nr_involuntary_switches" -> preempted = Long.parseLong(kv[1].trim());
          case "se.nr_migrations" -> migrated = Long.parseLong(kv[1].trim());
          default -> { }
        }
      }
      String stat = Files.readString(Path.of("/proc/self/stat"));
      String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
      long ticks = Long.parseLong(f[11]) + Long.parseLong(f[12]); // utime, stime
      Map<String, Long> byName = new TreeMap<>();
      try (DirectoryStream<Path> tasks = Files.newDirectoryStream(Path.of("/proc/self/task"))) {
        for (Path t : tasks) {
          String line;
          try {
            line = Files.readString(t.resolve("stat"));
          } catch (IOException ended) {
            continue;
          }
          String name = line.substring(line.indexOf('(') + 1, line.lastIndexOf(')'))
              .replaceAll("[#-]?[0-9]+$", "");
          String[] g = line.substring(line.lastIndexOf(')') + 2).split(" ");
          byName.merge(name, (Long.parseLong(g[11]) + Long.parseLong(g[12])) * NANOS_PER_TICK,
              Long::sum);
        }
      }
      return new Sched(run, preempted, migrated, ticks * NANOS_PER_TICK, byName);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** This count less an earlier one, plus {@code sum}: a phase's counts added to the others. */
  Sched since(Sched earlier, Sched sum) {
    Map<String, Long> names = new TreeMap<>(sum.byName);
    byName.forEach((name, nanos) -> names.merge(name,
        nanos - earlier.byName.getOrDefault(name, 0L), Long::sum));
    return new Sched(sum.threadRunNanos + threadRunNanos - earlier.threadRunNanos,
        sum.preemptions + preemptions - earlier.preemptions,
        sum.migrations + migrations - earlier.migrations,
        sum.processCpuNanos + processCpuNanos - earlier.processCpuNanos, names);
  }
}
