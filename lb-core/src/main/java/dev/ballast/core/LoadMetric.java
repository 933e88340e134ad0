package dev.ballast.core;

import java.time.Duration;
import java.util.concurrent.atomic.LongAdder;

/**
 * What a node records when a request completes, chosen by the balancer that creates the node
 * (Finagle's load metric). Balancers that need nothing use {@link #NONE} and pay nothing.
 */
abstract class LoadMetric {

  static final LoadMetric NONE = new LoadMetric() {};

  void init(Node<?> node) {}

  void onComplete(Node<?> node, long latencyNanos, boolean success) {}

  /** A completion given its start on the balancer's ticker; only timing metrics read a clock. */
  void onCompleteSince(Node<?> node, long startNanos, boolean success) {
    onComplete(node, 0, success);
  }

  /** Called after a pick counted a pending request on the node. */
  void onAcquire(Node<?> node) {}

  /** Called after a completion or cancellation released one of the node's pending requests. */
  void onRelease(Node<?> node) {}

  double rttEstimate(Node<?> node) {
    return -1;
  }

  /**
   * Peak EWMA of the round-trip time (Finagle's PeakEwma, tower's and Linkerd's peak_ewma).
   *
   * <p>On an RTT above the stored estimate, the estimate jumps to it (the peak); otherwise it
   * moves toward it with weight {@code w = exp(-elapsed/tau)}: {@code est = est*w + rtt*(1-w)}.
   * Reads decay the estimate toward zero the same way, computed without writing (decaying twice
   * by {@code a} then {@code b} equals decaying once by {@code a+b}), so a pick writes nothing.
   * New nodes start at the default RTT (Linkerd: 30 ms) rather than at zero, which would flood
   * them (tower issue 134).
   *
   * <p>The estimate and its time stamp are two fields updated by one CAS on the estimate; a
   * reader racing an update may decay one sample with a stale stamp, an error far below the
   * noise of the estimate, and the price of taking no lock.
   */
  static final class PeakEwma extends LoadMetric {
    // Finagle's penalty for a node with outstanding requests and no estimate.
    static final double PENALTY = (double) (Long.MAX_VALUE >> 16);

    final Ticker ticker;
    final double tauNanos;
    final double defaultRttNanos;
    final double failurePenalty;

    PeakEwma(Ticker ticker, Duration decayTime, Duration defaultRtt, double failurePenalty) {
      this.ticker = ticker;
      this.tauNanos = decayTime.toNanos();
      this.defaultRttNanos = defaultRtt.toNanos();
      this.failurePenalty = failurePenalty;
    }

    @Override
    void init(Node<?> node) {
      node.initRtt(defaultRttNanos, ticker.nanoTime());
    }

    @Override
    void onComplete(Node<?> node, long latencyNanos, boolean success) {
      record(node, ticker.nanoTime(), latencyNanos, success);
    }

    @Override
    void onCompleteSince(Node<?> node, long startNanos, boolean success) {
      long now = ticker.nanoTime();
      record(node, now, Math.max(0, now - startNanos), success);
    }

    /** Feeds one sample observed at {@code now}: one clock reading per completion, one exp. */
    private void record(Node<?> node, long now, double rtt, boolean success) {
      for (;;) {
        long bits = node.rttBits();
        double est = Double.longBitsToDouble(bits);
        long elapsed = Math.max(0, now - node.rttStamp());
        double next;
        if (!success) {
          next = penalized(est, elapsed, rtt);
        } else if (rtt > est) {
          next = rtt;
        } else {
          double w = exp(-elapsed / tauNanos);
          next = est * w + rtt * (1 - w);
        }
        if (node.casRtt(bits, Double.doubleToRawLongBits(next), now)) {
          return;
        }
      }
    }

    /**
     * A failure's estimate ({@link BalancerConfig#failurePenalty()}): {@code max(latency, m ×
     * e)}, e the estimate decayed over {@code elapsed}, {@code m = 1 + (penalty − 1) × elapsed /
     * (elapsed + latency)}, at most {@link #PENALTY}.
     */
    double penalized(double est, long elapsed, double rtt) {
      double decayed = est * exp(-elapsed / tauNanos);
      double m = 1 + (failurePenalty - 1) * elapsed / (elapsed + Math.max(rtt, 1));
      return Math.min(PENALTY, Math.max(rtt, decayed * m));
    }

    @Override
    double rttEstimate(Node<?> node) {
      return decayed(node, ticker.nanoTime());
    }

    double decayed(Node<?> node, long now) {
      double est = Double.longBitsToDouble(node.rttBits());
      long elapsed = now - node.rttStamp();
      return elapsed <= 0 ? est : est * Math.exp(-elapsed / tauNanos);
    }

    /**
     * Returns whether node {@code b} costs strictly less than node {@code a} now ({@link
     * #cost}). Both estimates decay by {@code exp(-(now - stamp) / tau)}; the common factor
     * {@code exp(-now / tau)} cancels, so unless a node has no estimate (Finagle's penalty, then
     * costs are compared at the current time) the comparison reads no clock and takes one
     * {@code exp} instead of two, and on busy nodes, whose stamps are close, not even that
     * ({@link #exp}).
     */
    boolean cheaper(Node<?> b, int wb, Node<?> a, int wa) {
      double ea = Double.longBitsToDouble(a.rttBits());
      double eb = Double.longBitsToDouble(b.rttBits());
      if (ea == 0 || eb == 0) {
        long now = ticker.nanoTime();
        return cost(b, wb, now) < cost(a, wa, now);
      }
      double la = ea * (a.pending() + 1) / wa;
      double lb = eb * (b.pending() + 1) / wb;
      return lb * exp((b.rttStamp() - a.rttStamp()) / tauNanos) < la;
    }

    /**
     * Returns {@code e^x}: for {@code |x| < 2^-10} (samples under 10 ms apart at tau = 10 s, the
     * usual case on a busy node), the Taylor polynomial {@code 1 + x + x²/2 + x³/6}, whose error
     * {@code x⁴/24 · e^|x|} is below 2^-44 of the result, far under the estimate's noise;
     * otherwise {@link Math#exp}, which costs several times more.
     */
    static double exp(double x) {
      if (Math.abs(x) < 0x1p-10) {
        return 1 + x * (1 + x * (0.5 + x * (1.0 / 6)));
      }
      return Math.exp(x);
    }

    /** Finagle's cost: estimate x (pending + 1), divided by the weight. */
    double cost(Node<?> node, int weight, long now) {
      double est = decayed(node, now);
      int pending = node.pending();
      if (est == 0 && pending != 0) {
        return (PENALTY + pending) / weight;
      }
      return est * (pending + 1) / weight;
    }
  }

  /**
   * The pending requests of all the nodes a balancer made, summed as they change, for bounded
   * loads (Envoy likewise reads a cluster-wide active-request gauge): reading the total is a
   * sum over a few cells, not over the nodes.
   */
  static final class InFlight extends LoadMetric {
    final LongAdder total = new LongAdder();

    @Override
    void onAcquire(Node<?> node) {
      total.increment();
    }

    @Override
    void onRelease(Node<?> node) {
      total.decrement();
    }
  }

  /** nginx SWRR's failure feedback: a failure lowers effective weight by weight/max_fails. */
  static final class SwrrFailures extends LoadMetric {
    final int maxFails;

    SwrrFailures(int maxFails) {
      this.maxFails = maxFails;
    }

    @Override
    void onComplete(Node<?> node, long latencyNanos, boolean success) {
      if (!success) {
        node.dropEffectiveWeight(node.weight() / maxFails);
      }
    }
  }
}
