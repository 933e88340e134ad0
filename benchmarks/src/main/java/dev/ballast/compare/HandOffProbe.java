package dev.ballast.compare;

import dev.ballast.demo.HostLoad;
import dev.ballast.netty.BallastClient;
import dev.ballast.netty.http.HttpRequest;
import dev.ballast.netty.http.HttpResponse;
import dev.ballast.netty.internal.Transport;
import io.netty.channel.EventLoopGroup;
import java.io.File;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.time.Duration;
import java.util.Locale;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * {@code java -cp benchmarks.jar dev.ballast.compare.HandOffProbe [seconds] [loops]
 * [concurrency]}: the healthy run's HTTP/1.1 point, in one JVM, counting what a call costs the
 * client's event loops in thread switches (Linux: from {@code /proc/self/task}) and CPU time. A
 * closed loop sends each call from the loop that completed the one before; a call whose
 * connection lives on another loop is handed over (a task, a wake-up, a thread switch). Prints
 * calls a second, the client's loops' context switches per call, voluntary and not (1 at
 * concurrency 1 when every call stays on one loop: it sleeps once, waiting for the answer), their
 * CPU time per call and the busiest loop's share of it (how evenly the calls spread). Defaults:
 * 5 s measured after 5 s of warm-up, 2 loops, concurrency 1.
 */
public final class HandOffProbe {

  private static final HttpRequest GET = HttpRequest.get("/");
  private static final String PREFIX = "handoff-";

  private HandOffProbe() {}

  /** Runs the probe; see the class comment for the arguments. */
  public static void main(String[] args) throws Exception {
    long seconds = args.length > 0 ? Long.parseLong(args[0]) : 5;
    int loops = args.length > 1 ? Integer.parseInt(args[1]) : 2;
    int concurrency = args.length > 2 ? Integer.parseInt(args[2]) : 1;
    System.out.println(HostLoad.describe("start"));
    EventLoopGroup group = Transport.newGroup(loops, "handoff");
    try (Backends backends = Backends.start(11, null);
        BallastClient<HttpRequest, HttpResponse> client = BallastClient.http()
            .name("handoff-probe")
            .endpoints(String.join(",", backends.httpTargets()))
            .eventLoopGroup(group)
            .timeout(Duration.ofSeconds(10))
            .build()) {
      run(client, TimeUnit.SECONDS.toNanos(seconds), concurrency); // warm-up
      long switches = switches();
      long[] cpu = loopCpuNanos();
      long t0 = System.nanoTime();
      long calls = run(client, TimeUnit.SECONDS.toNanos(seconds), concurrency);
      double wall = (System.nanoTime() - t0) / 1e9;
      double perCall = (switches() - switches) / (double) calls;
      long[] cpuAfter = loopCpuNanos();
      long total = 0;
      long most = 0;
      for (int i = 0; i < cpu.length; i++) {
        long used = cpuAfter[i] - cpu[i];
        total += used;
        most = Math.max(most, used);
      }
      System.out.printf(Locale.ROOT, "%d loops, concurrency %d: %.0f calls/s, %.3f context"
          + " switches of the client's loops per call, %.1f µs of their CPU per call, %.0f%% of"
          + " it on the busiest loop%n", loops, concurrency, calls / wall, perCall,
          total / 1e3 / calls, total == 0 ? 0 : 100.0 * most / total);
    } finally {
      group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }
    System.out.println(HostLoad.describe("end"));
    System.exit(0);
  }

  // A closed loop at a concurrency for a while, each chain started here; returns the calls made.
  private static long run(BallastClient<HttpRequest, HttpResponse> client, long nanos,
      int concurrency) {
    long until = System.nanoTime() + nanos;
    AtomicLong calls = new AtomicLong();
    CompletableFuture<?>[] chains = new CompletableFuture<?>[concurrency];
    for (int i = 0; i < concurrency; i++) {
      CompletableFuture<Void> done = new CompletableFuture<>();
      chains[i] = done;
      next(client, until, calls, done);
    }
    CompletableFuture.allOf(chains).join();
    return calls.get();
  }

  private static void next(BallastClient<HttpRequest, HttpResponse> client, long until,
      AtomicLong calls, CompletableFuture<Void> done) {
    client.call(GET).whenComplete((r, e) -> {
      if (e != null || r.status() != 200) {
        done.completeExceptionally(
            e != null ? e : new IllegalStateException("status " + r.status()));
        return;
      }
      calls.incrementAndGet();
      if (System.nanoTime() < until) {
        next(client, until, calls, done);
      } else {
        done.complete(null);
      }
    });
  }

  // The CPU time so far of each of the client's loop threads, in the order of their names.
  private static long[] loopCpuNanos() {
    ThreadMXBean mx = ManagementFactory.getThreadMXBean();
    TreeMap<String, Long> byName = new TreeMap<>();
    for (Thread t : Thread.getAllStackTraces().keySet()) {
      if (t.getName().startsWith(PREFIX)) {
        byName.put(t.getName(), mx.getThreadCpuTime(t.getId()));
      }
    }
    return byName.values().stream().mapToLong(Long::longValue).toArray();
  }

  // The context switches so far of the client's loop threads, voluntary and not.
  private static long switches() throws IOException {
    long n = 0;
    File[] tasks = new File("/proc/self/task").listFiles();
    if (tasks == null) {
      throw new IOException("/proc/self/task: not readable (expected: Linux)");
    }
    for (File t : tasks) {
      if (!Files.readString(new File(t, "comm").toPath()).startsWith(PREFIX)) {
        continue;
      }
      for (String line : Files.readAllLines(new File(t, "status").toPath())) {
        if (line.startsWith("voluntary_ctxt_switches")
            || line.startsWith("nonvoluntary_ctxt_switches")) {
          n += Long.parseLong(line.substring(line.indexOf(':') + 1).trim());
        }
      }
    }
    return n;
  }
}
