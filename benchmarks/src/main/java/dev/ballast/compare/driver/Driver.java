package dev.ballast.compare.driver;

import java.io.BufferedReader;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * The load side of {@code ./ballast compare}, shared by every client's driver: it runs in the
 * client's own JVM (with only the client's class path and this package, which needs nothing but
 * the JDK), opens the client, warms it up, then runs the measured window when the coordinator
 * says so, and writes what it saw to a file.
 *
 * <p>The line protocol on standard input and output: the driver prints {@code READY} once
 * warmed up, waits for a line {@code GO}, runs, writes the result file and prints {@code DONE}.
 * Arguments are {@code key=value}: {@code targets} (comma-separated {@code host:port}), {@code
 * policy}, {@code protocol} ({@code h1}, {@code h2}, {@code grpc}), {@code timeout} (ms), {@code
 * rate} (calls a second, an open loop) or {@code concurrency} (calls kept in flight, a closed
 * loop), {@code warmup} and {@code duration} (ms), {@code out} (the result file).
 *
 * <p>The result file (big-endian): calls, successes (answered without error within the
 * timeout), errors, the process's CPU time over the window in nanoseconds (from {@code
 * OperatingSystemMXBean#getProcessCpuTime}, so it counts every thread of the client, its event
 * loops included), the window's wall time in nanoseconds, then the number of latencies and each
 * latency in microseconds.
 */
public final class Driver {

  /** A client under test: one call to the servers, ending when it does. */
  public interface Client {
    /** Sends one call; the stage ends exceptionally if the call failed (a non-200 answer too). */
    CompletionStage<?> call();
  }

  /** Opens a client from the run's settings. */
  public interface Opener {
    /** Returns a ready client over {@link Settings#targets()}. */
    Client open(Settings settings) throws Exception;
  }

  /** The run's settings, from the command line. */
  public record Settings(List<String> targets, String policy, String protocol, long timeoutMillis,
      double rate, int concurrency, long warmupMillis, long durationMillis, Path out) {

    /** Returns the port of target {@code i}. */
    public int port(int i) {
      String t = targets.get(i);
      return Integer.parseInt(t.substring(t.lastIndexOf(':') + 1));
    }

    static Settings parse(String[] args) {
      Map<String, String> m = new HashMap<>();
      for (String a : args) {
        int eq = a.indexOf('=');
        if (eq < 0) {
          throw new IllegalArgumentException("argument: " + a + " (expected: key=value)");
        }
        m.put(a.substring(0, eq), a.substring(eq + 1));
      }
      return new Settings(List.of(m.get("targets").split(",")), m.getOrDefault("policy", ""),
          m.getOrDefault("protocol", "h1"), Long.parseLong(m.getOrDefault("timeout", "120")),
          Double.parseDouble(m.getOrDefault("rate", "0")),
          Integer.parseInt(m.getOrDefault("concurrency", "0")),
          Long.parseLong(m.getOrDefault("warmup", "3000")),
          Long.parseLong(m.getOrDefault("duration", "20000")), Path.of(m.get("out")));
    }
  }

  private final Settings settings;
  private final Client client;
  private final long timeoutNanos;
  private final AtomicLong successes = new AtomicLong();
  private final AtomicLong errors = new AtomicLong();
  private final AtomicLong ended = new AtomicLong();
  private final Map<String, AtomicLong> errorKinds = new ConcurrentHashMap<>();
  private final AtomicInteger recorded = new AtomicInteger();
  private final AtomicLong sent = new AtomicLong();
  private volatile int[] latencies = new int[0];
  private volatile boolean recording; // false in the warm-up

  private Driver(Settings settings, Client client) {
    this.settings = settings;
    this.client = client;
    this.timeoutNanos = TimeUnit.MILLISECONDS.toNanos(settings.timeoutMillis());
  }

  /** Runs a driver: parses {@code args}, opens the client, and speaks the line protocol. */
  public static void run(String[] args, Opener opener) throws Exception {
    Settings s = Settings.parse(args);
    Driver d = new Driver(s, opener.open(s));
    d.load(TimeUnit.MILLISECONDS.toNanos(s.warmupMillis()));
    d.awaitEnded(d.sent.get());
    System.out.println("READY");
    System.out.flush();
    String line = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();
    if (!"GO".equals(line)) {
      System.exit(3);
    }
    d.measure();
    System.out.println("DONE");
    System.out.flush();
    System.exit(0); // clients keep non-daemon threads; the result is written
  }

  private void measure() throws IOException {
    long durationNanos = TimeUnit.MILLISECONDS.toNanos(settings.durationMillis());
    int capacity = settings.rate() > 0 ? (int) Math.ceil(settings.rate() * settings.durationMillis() / 1000.0) + 16
        : 1 << 22;
    latencies = new int[capacity];
    successes.set(0);
    errors.set(0);
    errorKinds.clear();
    long before = sent.get();
    long endedBefore = ended.get();
    recording = true;
    long cpu0 = cpuNanos();
    long t0 = System.nanoTime();
    load(durationNanos);
    awaitEnded(endedBefore + (sent.get() - before));
    long wall = System.nanoTime() - t0;
    long cpu = cpuNanos() - cpu0;
    recording = false;
    int n = Math.min(recorded.get(), latencies.length);
    try (OutputStream file = Files.newOutputStream(settings.out());
        DataOutputStream out = new DataOutputStream(new java.io.BufferedOutputStream(file))) {
      out.writeLong(sent.get() - before);
      out.writeLong(successes.get());
      out.writeLong(errors.get());
      out.writeLong(cpu);
      out.writeLong(wall);
      out.writeInt(n);
      for (int i = 0; i < n; i++) {
        out.writeInt(latencies[i]);
      }
    }
    if (!errorKinds.isEmpty()) {
      System.err.println("errors by kind: " + errorKinds);
    }
  }

  /** Waits for the calls sent so far to end, at most the timeout and 5 s more. */
  private void awaitEnded(long target) {
    long until = System.nanoTime() + timeoutNanos + TimeUnit.SECONDS.toNanos(5);
    while (ended.get() < target && System.nanoTime() < until) {
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
    }
  }

  /** Runs the load for a while: an open loop at the rate, or a closed loop at the concurrency. */
  private void load(long nanos) {
    if (nanos <= 0) {
      return;
    }
    long start = System.nanoTime();
    long end = start + nanos;
    if (settings.rate() > 0) {
      double gap = 1e9 / settings.rate();
      long total = Math.round(nanos / gap);
      for (long n = 0; n < total; ) {
        long wait = start + Math.round(n * gap) - System.nanoTime();
        if (wait > 0) {
          LockSupport.parkNanos(wait);
          continue;
        }
        send(-1);
        n++;
      }
    } else {
      for (int i = 0; i < settings.concurrency(); i++) {
        send(end);
      }
      LockSupport.parkNanos(end - System.nanoTime());
      while (System.nanoTime() < end) {
        LockSupport.parkNanos(end - System.nanoTime());
      }
    }
  }

  /** Sends one call; in a closed loop ({@code until >= 0}) its end sends the next until then. */
  private void send(long until) {
    sent.incrementAndGet();
    long t0 = System.nanoTime();
    CompletionStage<?> stage;
    try {
      stage = client.call();
    } catch (RuntimeException e) {
      stage = java.util.concurrent.CompletableFuture.failedFuture(e);
    }
    stage.whenComplete((rep, err) -> {
      long latency = System.nanoTime() - t0;
      if (recording) {
        if (err == null && latency <= timeoutNanos) {
          successes.incrementAndGet();
        }
        if (err != null) {
          errors.incrementAndGet();
          errorKinds.computeIfAbsent(kind(err), k -> new AtomicLong()).incrementAndGet();
        }
        int i = recorded.getAndIncrement();
        int[] a = latencies;
        if (i < a.length) {
          a[i] = (int) Math.min(Integer.MAX_VALUE, latency / 1000);
        }
      }
      ended.incrementAndGet();
      if (until >= 0 && System.nanoTime() < until) {
        send(until);
      }
    });
  }

  /** Returns an error's kind for the log: its root cause's class and the first words of its message. */
  private static String kind(Throwable err) {
    Throwable c = err;
    while (c.getCause() != null && c.getCause() != c) {
      c = c.getCause();
    }
    String m = String.valueOf(c.getMessage());
    return c.getClass().getSimpleName() + ": " + m.substring(0, Math.min(m.length(), 30)).split("[:0-9]")[0];
  }

  private static long cpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
        .getProcessCpuTime();
  }
}
