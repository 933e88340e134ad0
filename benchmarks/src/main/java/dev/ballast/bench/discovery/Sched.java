package dev.ballast.bench.discovery;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

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
 */
record Sched(long threadRunNanos, long preemptions, long migrations, long processCpuNanos) {

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
      return new Sched(run, preempted, migrated, ticks * NANOS_PER_TICK);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** This count less an earlier one, plus {@code sum}: a phase's counts added to the others. */
  Sched since(Sched earlier, Sched sum) {
    return new Sched(sum.threadRunNanos + threadRunNanos - earlier.threadRunNanos,
        sum.preemptions + preemptions - earlier.preemptions,
        sum.migrations + migrations - earlier.migrations,
        sum.processCpuNanos + processCpuNanos - earlier.processCpuNanos);
  }
}
