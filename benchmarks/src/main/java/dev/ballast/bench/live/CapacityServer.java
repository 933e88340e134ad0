package dev.ballast.bench.live;

import java.util.ArrayDeque;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * The work of a server of {@code cores} cores, apart from its transport: each request holds one
 * of the cores for a fixed service time, and waits in a FIFO queue while all are busy (an
 * M/D/c queue). The work is a timer, not CPU burnt, so that servers of 8 cores in all run on a
 * machine of 2. Every second it samples its utilization (busy core-time over {@code cores} times
 * the second) and its answers per second, which its transport reports to the clients.
 *
 * <p>All its state is kept on one thread, the scheduler's (a single-threaded one, shared by the
 * servers of a run), so nothing is locked: transports hand requests over with {@link #submit}.
 */
final class CapacityServer {

  private final int cores;
  private final long serviceNanos;
  private final ScheduledExecutorService clock;
  private final ArrayDeque<Runnable> queue = new ArrayDeque<>();
  private final ScheduledFuture<?> sampling;
  private int busy;
  private long busyNanos; // busy core-nanoseconds since the start
  private long lastChange = System.nanoTime();
  private long answered;
  private long sampledAt = lastChange;
  private long sampledBusy;
  private long sampledAnswered;
  private volatile double utilization = -1; // none before the first sample
  private volatile double qps;

  CapacityServer(int cores, long serviceNanos, ScheduledExecutorService clock) {
    this.cores = cores;
    this.serviceNanos = serviceNanos;
    this.clock = clock;
    this.sampling = clock.scheduleAtFixedRate(this::sample, 1, 1, TimeUnit.SECONDS);
  }

  int cores() {
    return cores;
  }

  /** Serves a request: {@code answer} runs (on the scheduler's thread) once its work is done. */
  void submit(Runnable answer) {
    clock.execute(() -> {
      if (busy < cores) {
        account();
        busy++;
        work(answer, System.nanoTime());
      } else {
        queue.add(answer);
      }
    });
  }

  /** The utilization of the last whole second, in [0, 1], or -1 before the first. */
  double utilization() {
    return utilization;
  }

  /** The answers per second of the last whole second. */
  double qps() {
    return qps;
  }

  /** Busy core-nanoseconds so far: the difference of two readings over {@code cores × time}. */
  long busyNanos() throws InterruptedException {
    try {
      return clock.submit(() -> {
        account();
        return busyNanos;
      }).get();
    } catch (ExecutionException e) {
      throw new IllegalStateException(e.getCause());
    }
  }

  /** Stops sampling; requests still queued are dropped with the scheduler. */
  void stop() {
    sampling.cancel(false);
  }

  // A core starts a request at `start` (its due time, not the timer's late wake-up, so that the
  // service time stays exact) and takes the next one from the queue when done.
  private void work(Runnable answer, long start) {
    long end = start + serviceNanos;
    clock.schedule(() -> {
      answered++;
      Runnable next = queue.poll();
      if (next != null) {
        work(next, end);
      } else {
        account();
        busy--;
      }
      answer.run();
    }, end - System.nanoTime(), TimeUnit.NANOSECONDS);
  }

  private void account() {
    long now = System.nanoTime();
    busyNanos += busy * (now - lastChange);
    lastChange = now;
  }

  private void sample() {
    account();
    double nanos = Math.max(1, lastChange - sampledAt);
    utilization = Math.min(1, (busyNanos - sampledBusy) / (cores * nanos));
    qps = (answered - sampledAnswered) * 1e9 / nanos;
    sampledAt = lastChange;
    sampledBusy = busyNanos;
    sampledAnswered = answered;
  }
}
