package dev.ballast.core.health;

import dev.ballast.core.Health;
import dev.ballast.core.Node;
import dev.ballast.core.Ticker;
import dev.ballast.core.log.StateChangeLog;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.random.RandomGenerator;

/**
 * The engine of active health checks: checks each node of a set with a {@link HealthProbe} every
 * {@linkplain HealthCheckConfig#interval() interval} and gives the verdict to the node with
 * {@link Node#setHealth}, after Envoy's thresholds: {@code unhealthyThreshold} failures in a row
 * (a timeout is a failure) make it {@link Health#UNHEALTHY}, {@code healthyThreshold} passes in a
 * row make it healthy again; a node starts healthy (not checked yet, it keeps its share).
 *
 * <p>Bounded for thousands of endpoints: it has no thread and no timer of its own. Its driver
 * calls {@link #runDue()} from one timer (at a fixed tick, or re-armed after the returned
 * delay). Every node
 * waits in one binary heap keyed by its next event (its next check, or the timeout of its
 * running check), so a run costs {@code O(log n)} per check started or timed out and nothing per
 * node that is not due; new nodes are spread over {@code initialJitter}; at most {@code
 * maxInFlight} checks run at once, the due ones beyond that wait in arrival order (an intrusive
 * queue) and start as running ones end. The only allocation per check is its result handle;
 * {@link #update} allocates in proportion to the nodes, once per endpoint update.
 *
 * <p>Thread-safe: results may arrive on any thread. The state is guarded by this object's lock,
 * held for a few field writes and heap steps only; probes are started and stopped outside it.
 *
 * @param <T> the thing being balanced
 */
public final class HealthChecker<T> {

  private final HealthCheckConfig config;
  private final HealthProbe<T> probe;
  private final Ticker ticker;
  private final RandomGenerator random;
  private final long intervalNanos;
  private final long timeoutNanos;
  private final long initialJitterNanos;
  private final long intervalJitterNanos;
  private final StateChangeLog states;

  // guarded by this
  private Map<Node<T>, Target<T>> targets = new HashMap<>();
  private final CheckQueue<T> queue = new CheckQueue<>();
  private int inFlight;
  private long completed;
  private boolean closed;

  /**
   * Creates a checker of no node yet.
   *
   * @param ticker the clock of due times and timeouts
   * @param random the source of the jitter
   */
  public HealthChecker(HealthCheckConfig config, HealthProbe<T> probe, Ticker ticker,
      RandomGenerator random) {
    this(config, probe, ticker, random, null);
  }

  /**
   * Creates a checker of no node yet that logs each endpoint's verdict change (failed, passed
   * again) to {@code states}, rate-limited.
   *
   * @param ticker the clock of due times and timeouts
   * @param random the source of the jitter
   * @param states where verdict changes are logged, or null for nowhere
   */
  public HealthChecker(HealthCheckConfig config, HealthProbe<T> probe, Ticker ticker,
      RandomGenerator random, StateChangeLog states) {
    this.states = states;
    this.config = Objects.requireNonNull(config, "config");
    this.probe = Objects.requireNonNull(probe, "probe");
    this.ticker = Objects.requireNonNull(ticker, "ticker");
    this.random = Objects.requireNonNull(random, "random");
    this.intervalNanos = config.interval().toNanos();
    this.timeoutNanos = config.timeout().toNanos();
    this.initialJitterNanos = config.initialJitter().toNanos();
    this.intervalJitterNanos = config.intervalJitter().toNanos();
  }

  /** Returns the settings. */
  public HealthCheckConfig config() {
    return config;
  }

  /**
   * Sets the nodes to check: nodes that stay keep their state and schedule, new ones get their
   * first check at a random time within {@code initialJitter}, removed ones are checked no more
   * (a running check is stopped, its result ignored). Does nothing once closed.
   */
  public void update(Collection<? extends Node<T>> nodes) {
    Runnable[] stops;
    synchronized (this) {
      if (closed) {
        return;
      }
      long now = ticker.nanoTime();
      Map<Node<T>, Target<T>> next = new HashMap<>(Math.max(16, nodes.size() * 2));
      for (Node<T> n : nodes) {
        Target<T> t = targets.remove(n);
        if (t == null) {
          t = new Target<>(n);
          t.key = now + jitter(initialJitterNanos);
          queue.push(t);
        }
        next.put(n, t);
      }
      stops = new Runnable[Math.min(inFlight, targets.size())];
      for (Target<T> gone : targets.values()) {
        queue.forget(gone);
        if (gone.running != null) {
          addStop(stops, gone.running.stop);
          gone.running = null;
          inFlight--;
        }
      }
      targets = next;
    }
    stopAll(stops);
  }

  /**
   * Fails the running checks that outlived the timeout and starts the due ones, as many as
   * {@code maxInFlight} allows (the others wait, in order); returns the delay in nanoseconds
   * until the next due check or timeout, at most one interval. Its driver calls it from one
   * timer; a check's result starts waiting checks by itself.
   */
  public long runDue() {
    Target<T> toStart;
    Runnable[] stops = null;
    long delay;
    synchronized (this) {
      if (closed) {
        return intervalNanos;
      }
      long now = ticker.nanoTime();
      for (Target<T> t = queue.peek(); t != null && t.key - now <= 0; t = queue.peek()) {
        queue.pop();
        if (t.running != null) { // its check timed out: a failure
          if (stops == null) {
            stops = new Runnable[inFlight];
          }
          addStop(stops, t.running.stop);
          ended(t, Health.UNHEALTHY, now);
        } else {
          queue.enqueue(t);
        }
      }
      toStart = startWaiting(now);
      Target<T> first = queue.peek();
      delay = first == null ? intervalNanos
          : Math.min(intervalNanos, Math.max(0, first.key - now));
    }
    stopAll(stops);
    start(toStart);
    return delay;
  }

  /** Returns how many checks are running now. */
  public synchronized int inFlight() {
    return inFlight;
  }

  /** Returns how many checks have ended (passed, failed or timed out) since the start. */
  public synchronized long completed() {
    return completed;
  }

  /** Returns how many checks are due and wait for a free slot. */
  public synchronized int waiting() {
    return queue.waiting();
  }

  /** Stops every running check and checks nothing more. */
  public void close() {
    Runnable[] stops;
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
      stops = new Runnable[inFlight];
      for (Target<T> t : targets.values()) {
        if (t.running != null) {
          addStop(stops, t.running.stop);
          t.running = null;
        }
      }
      inFlight = 0;
      targets = Map.of();
      queue.clear();
    }
    stopAll(stops);
  }

  /** A check's result arrived (on any thread). */
  void report(Target.Check<T> check, Health verdict) {
    Target<T> toStart;
    synchronized (this) {
      Target<T> t = check.target;
      if (closed || t.running != check) {
        return; // timed out, removed or closed meanwhile
      }
      long now = ticker.nanoTime();
      queue.remove(t);
      ended(t, verdict, now);
      toStart = startWaiting(now);
    }
    start(toStart);
  }

  // guarded by this: the check of t ended with this verdict; t goes back into the heap
  private void ended(Target<T> t, Health verdict, long now) {
    t.running = null;
    inFlight--;
    completed++;
    if (verdict == Health.UNHEALTHY) {
      t.passes = 0;
      if (++t.failures >= config.unhealthyThreshold() && t.verdict != Health.UNHEALTHY) {
        t.verdict = Health.UNHEALTHY;
        t.node.setHealth(Health.UNHEALTHY);
        logChange(t, "failed its active check " + t.failures + " times in a row");
      }
    } else {
      t.failures = 0;
      ++t.passes;
      if (t.verdict != verdict
          && (t.verdict != Health.UNHEALTHY || t.passes >= config.healthyThreshold())) {
        Health before = t.verdict;
        t.verdict = verdict;
        t.node.setHealth(verdict);
        if (before == Health.UNHEALTHY) {
          logChange(t, "passed its active check " + t.passes + " times in a row");
        }
      }
    }
    t.key = now + intervalNanos + jitter(intervalJitterNanos);
    queue.push(t);
  }

  private void logChange(Target<T> t, String what) {
    if (states != null) {
      states.log(StateChangeLog.Kind.HEALTH_CHECK, t.verdict == Health.UNHEALTHY
          ? System.Logger.Level.WARNING : System.Logger.Level.INFO,
          "endpoint " + t.node.address() + " " + what + ", now " + t.verdict);
    }
  }

  // guarded by this: gives due targets a slot while there is one; returns them, linked in order
  private Target<T> startWaiting(long now) {
    Target<T> first = null;
    Target<T> last = null;
    while (inFlight < config.maxInFlight()) {
      Target<T> t = queue.dequeue();
      if (t == null) {
        break;
      }
      inFlight++;
      t.running = new Target.Check<>(this, t);
      t.key = now + timeoutNanos;
      queue.push(t);
      if (last == null) {
        first = t;
      } else {
        last.nextStart = t;
      }
      last = t;
    }
    return first;
  }

  // outside the lock: hands each check to the probe
  private void start(Target<T> t) {
    while (t != null) {
      Target<T> next;
      Target.Check<T> c;
      synchronized (this) {
        next = t.nextStart;
        t.nextStart = null;
        c = t.running;
        if (c != null && c.started) {
          c = null; // timed out and due again before this start ran: its own start runs it
        } else if (c != null) {
          c.started = true;
        }
      }
      if (c != null) {
        try {
          c.stop = probe.check(t.node, c);
        } catch (RuntimeException e) { // a probe that cannot even start fails its check
          c.report(Health.UNHEALTHY);
        }
      }
      t = next;
    }
  }

  private static void addStop(Runnable[] stops, Runnable stop) {
    if (stop == null) {
      return;
    }
    for (int i = 0; i < stops.length; i++) {
      if (stops[i] == null) {
        stops[i] = stop;
        return;
      }
    }
  }

  private static void stopAll(Runnable[] stops) {
    if (stops == null) {
      return;
    }
    for (Runnable s : stops) {
      if (s != null) {
        try {
          s.run();
        } catch (RuntimeException e) {
          // a stop that fails leaves its check to end by itself: the checker has moved on
        }
      }
    }
  }

  private long jitter(long maxNanos) {
    return maxNanos <= 0 ? 0 : random.nextLong(maxNanos + 1);
  }

  @Override
  public synchronized String toString() {
    return "HealthChecker{" + targets.size() + " nodes, " + inFlight + " checks running, every "
        + Duration.ofNanos(intervalNanos) + "}";
  }
}
