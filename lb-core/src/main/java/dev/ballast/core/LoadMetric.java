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

    PeakEwma(Ticker ticker, Duration decayTime, Duration defaultRtt) {
      this.ticker = ticker;
      this.tauNanos = decayTime.toNanos();
      this.defaultRttNanos = defaultRtt.toNanos();
    }

    @Override
    void init(Node<?> node) {
      node.initRtt(defaultRttNanos, ticker.nanoTime());
    }

    @Override
    void onComplete(Node<?> node, long latencyNanos, boolean success) {
      long now = ticker.nanoTime();
      double rtt = latencyNanos;
      for (;;) {
        long bits = node.rttBits();
        double est = Double.longBitsToDouble(bits);
        double next;
        if (rtt > est) {
          next = rtt;
        } else {
          double w = Math.exp(-Math.max(0, now - node.rttStamp()) / tauNanos);
          next = est * w + rtt * (1 - w);
        }
        if (node.casRtt(bits, Double.doubleToRawLongBits(next), now)) {
          return;
        }
      }
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
     * {@code exp} instead of two.
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
      return lb * Math.exp((b.rttStamp() - a.rttStamp()) / tauNanos) < la;
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
