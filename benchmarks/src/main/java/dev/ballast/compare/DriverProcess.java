package dev.ballast.compare;

import dev.ballast.sim.Result;
import java.io.BufferedInputStream;
import java.io.BufferedReader;
import java.io.DataInputStream;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;

/**
 * One client's driver in its own JVM: started on its class path, warmed up, told to go when the
 * servers are ready, and its result file read (the protocol is {@link
 * dev.ballast.compare.driver.Driver}'s). The driver's standard error goes to a log file.
 */
final class DriverProcess {

  /** What a driver measured. */
  record Outcome(long calls, long successes, long errors, long cpuNanos, long wallNanos,
      Histogram histogram) {

    /** Returns the client process's CPU time per call in microseconds. */
    double cpuMicrosPerCall() {
      return cpuNanos / 1e3 / Math.max(1, calls);
    }

    /** Returns the calls per second of the client process's CPU time. */
    double callsPerCpuSecond() {
      return calls / Math.max(1e-9, cpuNanos / 1e9);
    }

    /** Returns the calls per second of wall time. */
    double callsPerSecond() {
      return calls / Math.max(1e-9, wallNanos / 1e9);
    }

    /** Returns the outcome as a {@link Result} named {@code name}, for tables and charts. */
    Result result(String name, long[] received) {
      long sum = 0;
      for (long r : received) {
        sum += r;
      }
      return new Result(name, calls, successes, sum, received, histogram);
    }
  }

  private final Path javaBin = Path.of(System.getProperty("java.home"), "bin", "java");
  private final Path peers;
  private final Path work;
  private final List<String> jvmArgs;

  /**
   * @param peers where the peers' class paths were built ({@code <peer>/classes} and {@code
   *     <peer>/classpath.txt})
   * @param work where result and log files go
   * @param jvmArgs more arguments for every driver's JVM
   */
  DriverProcess(Path peers, Path work, List<String> jvmArgs) {
    this.peers = peers;
    this.work = work;
    this.jvmArgs = List.copyOf(jvmArgs);
  }

  /** Returns why {@code c} cannot run here (its peer was not built), or null when it can. */
  String missing(Contender c) {
    if (c.peer() == null || Files.isRegularFile(peers.resolve(c.peer()).resolve("classpath.txt"))) {
      return null;
    }
    return "not built: " + peers.resolve(c.peer()) + " (./ballast compare builds the peers)";
  }

  /**
   * Runs {@code c}'s driver against {@code targets} with {@code load} ({@code rate} or {@code
   * concurrency}, {@code warmup}, {@code duration}, {@code timeout}), calling {@code go} once it
   * is warmed up, just before the measured window.
   */
  Outcome run(Contender c, List<String> targets, Map<String, String> load, Runnable go)
      throws IOException, InterruptedException {
    Files.createDirectories(work);
    Path out = work.resolve(c.slug() + ".bin");
    Path log = work.resolve(c.slug() + ".log");
    Files.deleteIfExists(out);
    List<String> cmd = new ArrayList<>(List.of(javaBin.toString(), "-Xms256m", "-Xmx512m"));
    cmd.addAll(jvmArgs);
    cmd.addAll(List.of("-cp", classPath(c), c.driver(), "targets=" + String.join(",", targets),
        "policy=" + c.policy(), "protocol=" + c.protocol(), "out=" + out));
    load.forEach((k, v) -> cmd.add(k + "=" + v));
    Process p = new ProcessBuilder(cmd).redirectError(log.toFile()).start();
    long limitMillis = Long.parseLong(load.get("warmup")) + Long.parseLong(load.get("duration")) + 120_000;
    Thread watchdog = new Thread(() -> {
      try {
        if (!p.waitFor(limitMillis, TimeUnit.MILLISECONDS)) {
          p.destroyForcibly();
        }
      } catch (InterruptedException e) {
        p.destroyForcibly();
      }
    }, "compare-watchdog");
    watchdog.setDaemon(true);
    watchdog.start();
    try (BufferedReader in = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        Writer toDriver = new OutputStreamWriter(p.getOutputStream(), StandardCharsets.UTF_8)) {
      expect(in, "READY", log);
      go.run();
      toDriver.write("GO\n");
      toDriver.flush();
      expect(in, "DONE", log);
    } finally {
      if (!p.waitFor(10, TimeUnit.SECONDS)) {
        p.destroyForcibly();
      }
    }
    return read(out);
  }

  private String classPath(Contender c) throws IOException {
    if (c.peer() == null) {
      return System.getProperty("java.class.path");
    }
    Path dir = peers.resolve(c.peer());
    return dir.resolve("classes") + File.pathSeparator
        + Files.readString(dir.resolve("classpath.txt")).trim();
  }

  private static void expect(BufferedReader in, String word, Path log) throws IOException {
    String line;
    while ((line = in.readLine()) != null) {
      if (line.equals(word)) {
        return;
      }
    }
    List<String> lines = Files.readAllLines(log);
    throw new IOException("the driver ended before " + word + "; the end of " + log + ":\n  "
        + String.join("\n  ", lines.subList(Math.max(0, lines.size() - 15), lines.size())));
  }

  private static Outcome read(Path file) throws IOException {
    try (DataInputStream in = new DataInputStream(new BufferedInputStream(Files.newInputStream(file)))) {
      long calls = in.readLong();
      long successes = in.readLong();
      long errors = in.readLong();
      long cpu = in.readLong();
      long wall = in.readLong();
      int n = in.readInt();
      Histogram h = Result.newHistogram();
      for (int i = 0; i < n; i++) {
        h.recordValue(Math.max(0, in.readInt()));
      }
      return new Outcome(calls, successes, errors, cpu, wall, h);
    }
  }
}
