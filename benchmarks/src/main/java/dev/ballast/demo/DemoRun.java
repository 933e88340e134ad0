package dev.ballast.demo;

import dev.ballast.core.Algorithm;
import dev.ballast.netty.BallastClient;
import dev.ballast.netty.CallOptions;
import dev.ballast.netty.CallStats;
import dev.ballast.netty.error.DeadlineExceededException;
import dev.ballast.netty.framed.FramedServer;
import dev.ballast.netty.retry.Hedging;
import dev.ballast.sim.Durations;
import dev.ballast.sim.LatencyDistribution;
import dev.ballast.sim.Result;
import dev.ballast.sim.SlowWindow;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Histogram;

/**
 * One balancer's run of the demo: fresh backends (so every run sees the same slow window, timed
 * from its own start), one client, an open-loop sender at a constant rate, and progress lines
 * every two seconds.
 */
final class DemoRun {

  private static final long PROGRESS_NANOS = 2_000_000_000L;
  private static final CallOptions IDEMPOTENT = CallOptions.idempotent();
  private static final int RECOVERY_SECONDS = 3;

  private final Demo.DemoConfig config;
  private final Algorithm algorithm;
  private final Hedging hedging; // null for none
  private final String label;
  private final long durationNanos;
  // backend 0's slow window, or null for a run without one (the warm-up)
  private final SlowWindow slowWindow;
  private final PrintStream out;
  private final Histogram histogram = Result.newHistogram();
  private final AtomicLong done = new AtomicLong();
  private final AtomicLong ok = new AtomicLong();
  private final AtomicLong errors = new AtomicLong();
  private final AtomicLong deadlines = new AtomicLong();
  // Requests the backends received while backend 0 was slow, and how many of them it got.
  private final AtomicLong inWindow = new AtomicLong();
  private final AtomicLong slowInWindow = new AtomicLong();
  // Requests the backends received in each of the seconds after backend 0 recovered, and how
  // many of them it got.
  private final AtomicLong[] afterWindow = counters(RECOVERY_SECONDS);
  private final AtomicLong[] slowAfterWindow = counters(RECOVERY_SECONDS);
  private volatile long start;

  DemoRun(Demo.DemoConfig config, Algorithm algorithm, Hedging hedging, long durationNanos,
      boolean slowWindow, PrintStream out) {
    this.config = config;
    this.algorithm = algorithm;
    this.hedging = hedging;
    this.label = algorithm.id() + (hedging != null ? "+hedge" : "");
    this.durationNanos = durationNanos;
    this.slowWindow = slowWindow ? config.slowWindow() : null;
    this.out = out;
  }

  Result run() throws InterruptedException {
    List<FramedServer> servers = new ArrayList<>();
    BallastClient<byte[], byte[]> client = null;
    try {
      for (int i = 0; i < config.backends; i++) {
        servers.add(FramedServer.start(handler(i)));
      }
      client = Demo.client(config, algorithm, hedging, servers);
      long total = Math.round(durationNanos / 1e9 * config.rate);
      Sender sender = new Sender(client, total);
      start = System.nanoTime();
      Thread thread = new Thread(sender, "demo-sender");
      thread.setDaemon(true);
      thread.start();
      long nextProgress = start + PROGRESS_NANOS;
      long lastSlow = 0;
      long lastSent = 0;
      while (thread.isAlive()) {
        thread.join(Math.max(1, (nextProgress - System.nanoTime()) / 1_000_000));
        if (out != null && System.nanoTime() >= nextProgress && thread.isAlive()) {
          long sent = sender.sent;
          long slow = servers.get(0).requests();
          progress(sent, total, slow - lastSlow, sent - lastSent);
          lastSlow = slow;
          lastSent = sent;
          nextProgress += PROGRESS_NANOS;
        }
      }
      // Wait for the last answers: at most the client's deadline, plus a margin.
      long waitUntil = System.nanoTime() + Math.max(4 * config.slowLatencyNanos, 2 * config.timeoutNanos)
          + 2_000_000_000L;
      while (done.get() < sender.sent && System.nanoTime() < waitUntil) {
        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
      }
      long[] picks = new long[servers.size()];
      long received = 0;
      for (int i = 0; i < picks.length; i++) {
        picks[i] = servers.get(i).requests();
        received += picks[i];
      }
      if (out != null) {
        long n = sender.sent;
        out.printf(Locale.ROOT, "   done: %d requests, %.2f%% answered within %s; while it was slow,"
                + " backend 0 got %d of %d (%.2f%%)%s%n", n, 100.0 * ok.get() / Math.max(1, n),
            Durations.format(config.timeoutNanos), slowInWindow.get(), inWindow.get(),
            slowShare(), errors.get() > 0 ? ", " + errors.get() + " errors (not timeouts)" : "");
        if (slowWindow != null) {
          out.printf(Locale.ROOT, "   after backend 0 recovered at %s, its share per second:%s"
                  + " (fair %.2f%%)%n", Durations.format(slowWindow.endNanos()),
              recoveredText(), 100.0 / config.backends);
        }
        if (config.enforce) {
          out.printf(Locale.ROOT, "   %d calls given up at the %s deadline (their late answers"
              + " still reached the balancer)%n", deadlines.get(),
              Durations.format(config.timeoutNanos));
        }
        if (hedging != null) {
          CallStats stats = client.callStats();
          out.printf(Locale.ROOT, "   hedges: %d sent, %d won; the backends received %d requests"
                  + " for %d calls: %.2f%% extra load%n", stats.hedges(), stats.hedgesWon(),
              received, n, 100.0 * (received - n) / Math.max(1, n));
        }
        if (done.get() < n) {
          out.printf(Locale.ROOT, "   %d requests never ended: counted as failures%n", n - done.get());
        }
      }
      synchronized (histogram) {
        return new Result(label, sender.sent, ok.get(), received, picks, histogram.copy());
      }
    } finally {
      if (client != null) {
        client.closeAsync(Duration.ZERO);
      }
      for (FramedServer s : servers) {
        s.close();
      }
    }
  }

  private static AtomicLong[] counters(int n) {
    AtomicLong[] a = new AtomicLong[n];
    for (int i = 0; i < n; i++) {
      a[i] = new AtomicLong();
    }
    return a;
  }

  /**
   * Returns, for each of the seconds after backend 0 recovered, the percentage of the requests
   * received in it that went to backend 0.
   */
  double[] recoveredShares() {
    double[] shares = new double[RECOVERY_SECONDS];
    for (int i = 0; i < shares.length; i++) {
      shares[i] = 100.0 * slowAfterWindow[i].get() / Math.max(1, afterWindow[i].get());
    }
    return shares;
  }

  /** Returns backend 0's share in each second after it recovered, as "15s-16s 9.05%, ...". */
  String recoveredText() {
    StringBuilder text = new StringBuilder();
    double[] shares = recoveredShares();
    long end = slowWindow.endNanos();
    for (int i = 0; i < shares.length; i++) {
      text.append(String.format(Locale.ROOT, "%s %s-%s %.2f%%", i == 0 ? "" : ",",
          Durations.format(end + i * 1_000_000_000L),
          Durations.format(end + (i + 1) * 1_000_000_000L), shares[i]));
    }
    return text.toString();
  }

  /** Returns the percentage of requests received while backend 0 was slow that went to it. */
  double slowShare() {
    return 100.0 * slowInWindow.get() / Math.max(1, inWindow.get());
  }

  private void progress(long sent, long total, long slowDelta, long sentDelta) {
    long t = System.nanoTime() - start;
    boolean inWindow = slowWindow != null && slowWindow.covers(t);
    long d = done.get();
    out.printf(Locale.ROOT,
        "  %-19s %5.1fs  sent %6d/%d  in flight %4d  ok %6.2f%%  to slow backend %5.2f%%%s%n",
        label, t / 1e9, sent, total, sent - d, 100.0 * ok.get() / Math.max(1, d),
        100.0 * slowDelta / Math.max(1, sentDelta), inWindow ? "  [backend 0 slow]" : "");
  }

  private FramedServer.Handler handler(int index) {
    LatencyDistribution normal = config.latency();
    return req -> {
      long t = System.nanoTime() - start;
      LatencyDistribution latency = normal;
      if (slowWindow != null && slowWindow.covers(t)) {
        inWindow.incrementAndGet();
        if (index == slowWindow.backend()) {
          slowInWindow.incrementAndGet();
          latency = slowWindow.latency();
        }
      } else if (slowWindow != null && t >= slowWindow.endNanos()) {
        int second = (int) ((t - slowWindow.endNanos()) / 1_000_000_000L);
        if (second < RECOVERY_SECONDS) {
          afterWindow[second].incrementAndGet();
          if (index == slowWindow.backend()) {
            slowAfterWindow[second].incrementAndGet();
          }
        }
      }
      long nanos = latency.sampleNanos(ThreadLocalRandom.current());
      CompletableFuture<byte[]> reply = req.replyAfter(Duration.ofNanos(nanos), req.payload());
      if (latency != normal && slowWindow.fails()) {
        return reply.thenApply(payload -> {
          throw new IllegalStateException("backend 0 fails fast");
        });
      }
      return reply;
    };
  }

  /** Sends {@code total} calls evenly spaced at the configured rate (an open loop). */
  private final class Sender implements Runnable {
    private final BallastClient<byte[], byte[]> client;
    private final long total;
    volatile long sent;

    Sender(BallastClient<byte[], byte[]> client, long total) {
      this.client = client;
      this.total = total;
    }

    @Override
    public void run() {
      byte[] payload = new byte[16];
      double gap = 1e9 / config.rate;
      long n = 0;
      while (n < total) {
        long due = start + Math.round(n * gap);
        long wait = due - System.nanoTime();
        if (wait > 0) {
          LockSupport.parkNanos(wait);
          continue;
        }
        long t0 = System.nanoTime();
        // Idempotent, so that a hedged run may send a backup (no retries: maxAttempts is 1).
        client.call(payload, IDEMPOTENT).whenComplete((rep, err) -> ended(t0, err));
        sent = ++n;
      }
    }

    private void ended(long t0, Throwable err) {
      long latency = System.nanoTime() - t0;
      if (err == null && latency <= config.timeoutNanos) {
        ok.incrementAndGet();
      }
      if (err != null) {
        if (unwrap(err) instanceof DeadlineExceededException) {
          deadlines.incrementAndGet();
        } else {
          errors.incrementAndGet();
        }
      }
      synchronized (histogram) {
        histogram.recordValue(Math.round(latency / 1000.0));
      }
      done.incrementAndGet();
    }

    private Throwable unwrap(Throwable t) {
      while (t instanceof CompletionException && t.getCause() != null) {
        t = t.getCause();
      }
      return t;
    }
  }
}
