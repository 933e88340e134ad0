package dev.ballast.netty.internal;

import dev.ballast.core.Ticker;
import dev.ballast.netty.outlier.OutlierDetection;
import java.util.ArrayList;
import java.util.List;
import java.util.random.RandomGenerator;

/**
 * Decides ejections from request outcomes (see {@link OutlierDetection}). Time and randomness
 * are injected; {@link #reinstateExpired()} returns the hosts whose ejection ended, and the
 * client calls it from a timer (tests call it after moving their ticker).
 */
final class Ejections {

  /** Hears about ejections and reinstatements. */
  interface Listener {
    void ejected(Host host, long durationNanos, String reason);

    void reinstated(Host host);
  }

  /** One endpoint's detection state; guarded by its own lock (lock order: detector, host). */
  static final class Host {
    final String address;
    int consecutiveFailures;
    long windowStart;
    int windowTotal;
    int windowFailures;
    volatile boolean ejected;
    long ejectedUntil;
    int ejections;
    long reinstatedAt;
    boolean removed;

    Host(String address, long now) {
      this.address = address;
      this.windowStart = now;
      this.reinstatedAt = now;
    }

    boolean isEjected() {
      return ejected;
    }
  }

  private final OutlierDetection config;
  private final Ticker ticker;
  private final RandomGenerator random;
  private final Listener listener;
  private final List<Host> hosts = new ArrayList<>();
  // written under this lock; volatile so that a failure can see the cap without taking it
  private volatile int hostCount;
  private volatile int ejectedCount;

  Ejections(OutlierDetection config, Ticker ticker, RandomGenerator random,
      Listener listener) {
    this.config = config;
    this.ticker = ticker;
    this.random = random;
    this.listener = listener;
  }

  synchronized Host add(String address) {
    Host h = new Host(address, ticker.nanoTime());
    hosts.add(h);
    hostCount = hosts.size();
    return h;
  }

  synchronized void remove(Host h) {
    if (hosts.remove(h)) {
      hostCount = hosts.size();
      synchronized (h) {
        h.removed = true;
        if (h.ejected) {
          h.ejected = false;
          ejectedCount--;
        }
      }
    }
  }

  int ejectedCount() {
    return ejectedCount;
  }

  /**
   * Records one outcome; may eject the host (the listener hears it, outside the locks). An
   * outcome takes only the host's lock; the detector's lock is taken only when a failure crosses
   * a threshold while the ejection cap leaves room (checked first without the lock, so a host
   * failing while the cap is reached costs no contention), and the reason is written only for
   * an ejection.
   */
  void record(Host h, boolean success) {
    record(h, success, ticker.nanoTime());
  }

  /** As {@link #record(Host, boolean)}, for an outcome seen at {@code now} on the ticker. */
  void record(Host h, boolean success, long now) {
    if (!config.enabled()) {
      return;
    }
    // what crossed a threshold: consecutive failures (total < 0), else the window's rate
    int failures;
    int total;
    synchronized (h) {
      if (h.removed) {
        return;
      }
      if (now - h.windowStart >= config.interval().toNanos()) {
        h.windowStart = now;
        h.windowTotal = 0;
        h.windowFailures = 0;
      }
      h.windowTotal++;
      if (success) {
        h.consecutiveFailures = 0;
        return;
      }
      h.windowFailures++;
      h.consecutiveFailures++;
      if (h.ejected) {
        return;
      }
      if (h.consecutiveFailures >= config.consecutiveFailures()) {
        failures = h.consecutiveFailures;
        total = -1;
      } else if (config.successRateThreshold() > 0
          && h.windowTotal >= config.successRateMinRequests()
          && (h.windowTotal - h.windowFailures) < config.successRateThreshold() * h.windowTotal) {
        failures = h.windowFailures;
        total = h.windowTotal;
      } else {
        return;
      }
    }
    if (!canEject()) {
      return; // the cap is reached: a later failure tries again
    }
    long duration;
    synchronized (this) {
      synchronized (h) {
        if (h.removed || h.ejected || !canEject()) {
          return;
        }
        // Healthy for ten base ejection times since the last reinstatement: forget the past.
        long base = config.baseEjectionTime().toNanos();
        if (now - h.reinstatedAt > (base > Long.MAX_VALUE / 10 ? Long.MAX_VALUE : 10 * base)) {
          h.ejections = 0;
        }
        h.ejections++;
        duration = ejectionNanos(h.ejections);
        h.ejected = true;
        h.ejectedUntil = now + duration;
        ejectedCount++;
      }
    }
    String reason = total < 0 ? failures + " consecutive failures"
        : "success rate " + (total - failures) + "/" + total + " below "
            + config.successRateThreshold();
    listener.ejected(h, duration, reason);
  }

  // Final under this lock. At most maxEjectionPercent of the hosts, but one of two or more may go.
  private boolean canEject() {
    int n = hostCount;
    int max = (int) ((long) n * config.maxEjectionPercent() / 100);
    if (max == 0 && n >= 2 && config.maxEjectionPercent() > 0) {
      max = 1;
    }
    return ejectedCount < max;
  }

  long ejectionNanos(int ejections) {
    long base = config.baseEjectionTime().toNanos();
    long max = config.maxEjectionTime().toNanos();
    int shift = Math.min(ejections - 1, 30);
    long d = base > (max >> shift) ? max : Math.min(max, base << shift);
    double factor = 1 + config.jitter() * (2 * random.nextDouble() - 1);
    return Math.max(1, Math.min(max, (long) (d * factor)));
  }

  /** Reinstates every host whose ejection has ended; returns them. */
  List<Host> reinstateExpired() {
    long now = ticker.nanoTime();
    List<Host> back = new ArrayList<>();
    synchronized (this) {
      for (Host h : hosts) {
        synchronized (h) {
          if (h.ejected && now - h.ejectedUntil >= 0) {
            h.ejected = false;
            h.consecutiveFailures = 0;
            h.windowStart = now;
            h.windowTotal = 0;
            h.windowFailures = 0;
            h.reinstatedAt = now;
            ejectedCount--;
            back.add(h);
          }
        }
      }
    }
    for (Host h : back) {
      listener.reinstated(h);
    }
    return back;
  }
}
