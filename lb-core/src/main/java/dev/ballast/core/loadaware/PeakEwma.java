package dev.ballast.core.loadaware;

import dev.ballast.core.BalancerConfig;
import dev.ballast.core.Endpoint;
import dev.ballast.core.Ticker;
import dev.ballast.core.engine.EngineNode;
import dev.ballast.core.engine.LoadMetric;
import dev.ballast.core.loadaware.P2cPeakEwma.EwmaNode;
import java.time.Duration;

/**
 * Peak EWMA of the round-trip time (Finagle's PeakEwma, tower's and Linkerd's peak_ewma), whose
 * stale evidence is renewed by probing.
 *
 * <p>On an RTT above the stored estimate, the estimate jumps to it (the peak); otherwise it
 * moves toward it with weight {@code w = exp(-elapsed/tau)}: {@code est = est*w + rtt*(1-w)}.
 * Reads decay the estimate toward zero the same way, computed without writing (decaying twice
 * by {@code a} then {@code b} equals decaying once by {@code a+b}), so a pick writes nothing.
 * New nodes start at the default RTT (Linkerd: 30 ms) rather than at zero, which would flood
 * them (tower issue 134).
 *
 * <p>Why probes. The time-weighted decay alone never corrects a node that is not picked: one
 * slow call (a cold first call, a handshake, a pause) sets a peak that only time wears down,
 * about {@code tau × ln(peak / fleet)}, 95 s for 400 ms against 0.5 ms answers, while the node
 * gets nothing; a backend that recovers waits as long. Finagle and tower share this. So, as
 * Prequal probes replicas so that its choices rest on fresh signals and discards old ones
 * (Wydrowski et al., "Load is not what you should balance: Introducing Prequal", NSDI 2024),
 * and as C3 keeps every replica's score current from its own feedback (Suresh et al., "C3:
 * Cutting Tail Latency in Cloud Data Stores via Adaptive Replica Selection", NSDI 2015):
 *
 * <ul>
 *   <li>Evidence is stale when it is older than the other candidate's, whose last sample
 *       stands for "now" so that a pick reads no clock, by {@link #STALE_SAMPLES} (16) times
 *       the other's estimate, at most {@link #STALE_NANOS} (100 ms): staleness is measured in
 *       the fleet's own time, the time in which a node in traffic answers 16 calls and so
 *       forgets a peak ({@link #KEEP}), so that a node out of traffic forgets as fast as the
 *       nodes in it (equal forgetting; a fixed 100 ms is hundreds of calls of a
 *       sub-millisecond fleet, and one host hiccup, a few ms on one node's call, starved that
 *       node for as long). When the P2C loser's is stale, it has no request in flight (so at
 *       most one probe per node) and a draw of n in 32 succeeds (n nodes, at most 32 in 32: a
 *       stale node, a candidate in 2 picks of n, is probed once in 16 picks on average, and
 *       at low traffic a slow node gets at most that), the loser is taken instead: one real
 *       call, marked as a probe.
 *   <li>A probe's answer, and a success whose estimate is older than 100 ms (or still the
 *       default), replaces the estimate: one fresh sample corrects one stale one, as one slow
 *       sample raised it. Fresh estimates keep the peak EWMA unchanged, so a slow node still
 *       loses its traffic at its first slow answer.
 *   <li>A node whose probe confirms its stale estimate (answers no more than {@link #TIE}
 *       times faster) is probed again only after it is stale and {@link #PROBE_BACKOFF}{@code
 *       × min(new sample, old estimate)} more: a node the two last pieces of evidence agree is
 *       slow costs a caller at most a fifth of its time in probes. A probe much faster than
 *       the stale estimate (a node recovering, or a first call's cold path behind it, though
 *       the probe met a cold path of its own) is followed by the next once stale, so a node
 *       whose answers fall from 400 ms to 20 ms to 0.5 ms is back after a few probes, their
 *       latencies a geometric series.
 *   <li>A failure under {@link #SLOW_FAILURE_NANOS} (100 ms) is an error; its penalty
 *       compounds (to hours, for a server killed under load), so it is probed with a backoff,
 *       as Finagle's failure accrual probes a dead node: 100 ms, doubling per fast failure up
 *       to 1 s. A backend failing fast costs a caller about a call a second, and takes calls
 *       within a second of answering again. A slower failure (a timeout, a late answer) is
 *       slowness, probed as a slow answer is.
 * </ul>
 *
 * <p>Noise must not become skew either. With one caller, identical nodes whose estimates
 * hold their recent peaks for seconds (tau) take turns starving the one whose noise peaked
 * highest (five nodes: 470 / 413 / 401 / 367 / 253 picks in a second). So: a sample below the
 * estimate weighs at least 1/16 ({@link #KEEP}; C3 likewise smooths per response), so that a
 * busy node forgets a one-off peak within a few dozen answers; estimates within 2 times of
 * each other ({@link #TIE}) are taken as equal, and the node with fewer pending requests per
 * unit of weight is taken, then, of equal weights, the one heard from less recently, so that
 * identical nodes take turns; and a starved node is probed once stale. Why 2: an estimate is
 * a recent peak, and on a loaded host the peaks of sub-millisecond calls are the host's own
 * hiccups (scheduling, a collector's pause), whole milliseconds added to one call or
 * another; measured over three identical loopback servers at load 5 to 12 on 2 cores,
 * identical nodes' estimates were 1.5 to 2 times apart most of the time, and with 1.5 P2C
 * split 8 callers' calls further from a third than least loaded did. A difference below the
 * smaller estimate, the pair's own scale, is noise: P2C tells apart a node twice as slow or
 * worse (pending requests still tell apart closer ones), and a failure's penalty doubles an
 * estimate at least.
 *
 * <p>The estimate and its time stamp are two fields updated by one CAS on the estimate; a
 * reader racing an update may decay one sample with a stale stamp, an error far below the
 * noise of the estimate, and the price of taking no lock.
 */
final class PeakEwma extends LoadMetric {
  // Finagle's penalty for a node with outstanding requests and no estimate.
  static final double PENALTY = (double) (Long.MAX_VALUE >> 16);
  /**
   * How much older than the other candidate's a node's last sample is when it is stale, at
   * most: less when the other's estimate is short ({@link #STALE_SAMPLES}).
   */
  static final long STALE_NANOS = 100_000_000L;
  /**
   * Evidence is stale once it is older than this many of the other candidate's estimates:
   * the time in which a busy node answers that many calls and forgets a peak ({@link #KEEP}
   * weighs a sample 1/16), so that a node out of traffic forgets at the pace of the fleet.
   */
  static final int STALE_SAMPLES = 16;
  /** The most weight the estimate keeps against a sample below it: a sample weighs 1/16+. */
  static final double KEEP = 1 - 1.0 / 16;
  /**
   * Estimates within this factor of each other are equal: noise (a busy host's scheduling,
   * a collector's pause) sets identical nodes' peaks that far apart; a failure's penalty
   * doubles an estimate or more.
   */
  static final double TIE = 2;
  /** The wait before probing a node again, in units of the latency it was confirmed at. */
  static final int PROBE_BACKOFF = 4;
  /** A failure that took at least this long is slowness (a timeout), a faster one an error. */
  static final long SLOW_FAILURE_NANOS = 100_000_000L;
  /** The probe gaps after fast failures: from 100 ms, doubling, at most 1 s. */
  static final long FAILURE_GAP_MIN = 100_000_000L;
  static final long FAILURE_GAP_MAX = 1_000_000_000L;
  // Multiplies the pick's random number into bits nearly independent of the candidates'.
  private static final long GOLDEN = 0x9E3779B97F4A7C15L;

  final Ticker ticker;
  final double tauNanos;
  final double defaultRttNanos;
  private final long defaultBits;
  final double failurePenalty;

  PeakEwma(Ticker ticker, Duration decayTime, Duration defaultRtt, double failurePenalty) {
    this.ticker = ticker;
    this.tauNanos = decayTime.toNanos();
    this.defaultRttNanos = defaultRtt.toNanos();
    this.defaultBits = Double.doubleToRawLongBits(defaultRttNanos);
    this.failurePenalty = failurePenalty;
  }

  @Override
  protected <T> EngineNode<T> newNode(Endpoint endpoint, T value, Runnable healthListener) {
    return new EwmaNode<>(endpoint, value, this, this, healthListener);
  }

  /** Feeds one sample observed at {@code now}: one clock reading per completion, one exp. */
  void record(EwmaNode<?> node, long now, double rtt, boolean success) {
    for (;;) {
      long bits = node.rttBits();
      double est = Double.longBitsToDouble(bits);
      long elapsed = Math.max(0, now - node.rttStamp());
      double next;
      long gap = 0;
      // a probe's answer: the mark is set and this is the node's only request in flight (a
      // probe is sent to a node with none); a mark left by a probe that was never sent (a
      // gRPC pick dropped before its stream) counts for at most this one answer
      boolean marked = node.probed();
      boolean probe = marked && node.pending() == 1;
      if (!success) {
        next = penalized(est, elapsed, rtt);
        // a slow failure (a timeout) is slowness; a fast one an error, probed with a backoff
        gap = rtt < SLOW_FAILURE_NANOS
            ? Math.min(FAILURE_GAP_MAX, Math.max(FAILURE_GAP_MIN, 2 * node.probeGap()))
            : (long) (PROBE_BACKOFF * Math.min(rtt, est * exp(-elapsed / tauNanos)));
      } else if (probe) {
        // a probe's answer replaces the stale estimate; if it confirms it (is not more than
        // TIE times faster), the next probe waits in proportion to the node's latency
        next = rtt;
        double old = est * exp(-elapsed / tauNanos);
        gap = rtt * TIE < old ? 0 : (long) (PROBE_BACKOFF * Math.min(rtt, old));
      } else if (elapsed > STALE_NANOS || bits == defaultBits) {
        // stale evidence, or none yet: the fresh sample replaces it
        next = rtt;
      } else if (rtt > est) {
        next = rtt;
      } else {
        // time-weighted (tau), but a sample weighs at least 1/16, as in C3's per-response
        // EWMA: on a busy node a one-off peak is gone after a few dozen answers, not seconds
        double w = Math.min(exp(-elapsed / tauNanos), KEEP);
        next = est * w + rtt * (1 - w);
      }
      if (node.casRtt(bits, Double.doubleToRawLongBits(next), now)) {
        if (marked) {
          node.endProbe();
        }
        node.setProbeGap(gap);
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

  double decayed(EwmaNode<?> node, long now) {
    double est = Double.longBitsToDouble(node.rttBits());
    long elapsed = now - node.rttStamp();
    return elapsed <= 0 ? est : est * Math.exp(-elapsed / tauNanos);
  }

  /**
   * Returns whether P2C takes node {@code b} rather than node {@code a}. Estimates within
   * {@link #TIE} of each other are noise apart: the node with fewer pending requests per unit
   * of weight is taken; on a tie, of equal weights the one heard from less recently, so that
   * identical nodes take turns, else one drawn in proportion to the weights. Otherwise the
   * cheaper of the two (the cost of {@link #cheaper}), unless the
   * other one is due a probe ({@link #probes}). Reads no clock unless an estimate is zero.
   *
   * @param r the pick's random number, of which the probe's draw takes bits the candidates'
   *     draws left nearly independent
   */
  boolean takes(EwmaNode<?> b, int wb, EwmaNode<?> a, int wa, long r, int n) {
    double ea = Double.longBitsToDouble(a.rttBits());
    double eb = Double.longBitsToDouble(b.rttBits());
    long sa = a.rttStamp();
    long sb = b.rttStamp();
    boolean takesB;
    if (ea == 0 || eb == 0) {
      long now = ticker.nanoTime();
      takesB = cost(b, wb, now) < cost(a, wa, now);
    } else {
      eb *= exp((sb - sa) / tauNanos); // both decayed to the same time
      int pa = a.pending();
      int pb = b.pending();
      if (eb * TIE > ea && ea * TIE > eb) {
        // estimates within each other's noise: fewer pending per weight; on a tie, of equal
        // weights the node heard from less recently (whose evidence is older), so that
        // identical nodes take turns, else b with odds wb / (wa + wb)
        long qa = (long) pa * wb;
        long qb = (long) pb * wa;
        if (qa != qb) {
          return qb < qa;
        }
        return wa == wb ? sb < sa : ((r * GOLDEN) >>> 33) * (wa + wb) < (long) wb << 31;
      }
      takesB = costsLess(eb, pb, wb, ea, pa, wa);
    }
    // the loser's evidence is older than the winner's by:
    long age = takesB ? sb - sa : sa - sb;
    // stale: older by more than STALE_SAMPLES of the winner's estimates or STALE_NANOS; the
    // first test, in doubles, spares the usual pick the loser's probe fields
    double ew = takesB ? eb : ea;
    if ((age > STALE_SAMPLES * ew || age > STALE_NANOS)
        && probes(takesB ? a : b, age - stale(ew), r, n)) {
      return !takesB;
    }
    return takesB;
  }

  /**
   * Whether a loser whose evidence is {@code age} older than the winner's is probed now: it is
   * due ({@code age} past its probe gap), has nothing in flight, and a draw of {@code n} in 32
   * succeeds, so that a stale node, a candidate in 2 picks of {@code n}, is probed once in 16
   * picks on average whatever {@code n} (for {@code n} up to 32).
   */
  private static boolean probes(EwmaNode<?> loser, long pastStale, long r, int n) {
    // the draw: the top 5 bits of r times the golden ratio's, nearly independent of the
    // candidates, which the high and low halves of r chose
    if (pastStale > loser.probeGap() && loser.pending() == 0
        && (int) ((r * GOLDEN) >>> 59) < n) {
      loser.startProbe();
      return true;
    }
    return false;
  }

  /**
   * How much older than the winner's the loser's evidence must be to be stale: {@link
   * #STALE_SAMPLES} times the winner's estimate, at most {@link #STALE_NANOS}.
   */
  private static long stale(double winnerEstimate) {
    return (long) Math.min(STALE_NANOS, STALE_SAMPLES * winnerEstimate);
  }

  /**
   * Returns whether node {@code b} costs strictly less than node {@code a} now ({@link
   * #cost}). Both estimates decay by {@code exp(-(now - stamp) / tau)}; the common factor
   * {@code exp(-now / tau)} cancels, so unless a node has no estimate (Finagle's penalty, then
   * costs are compared at the current time) the comparison reads no clock and takes one
   * {@code exp} instead of two, and on busy nodes, whose stamps are close, not even that
   * ({@link #exp}).
   */
  boolean cheaper(EwmaNode<?> b, int wb, EwmaNode<?> a, int wa) {
    double ea = Double.longBitsToDouble(a.rttBits());
    double eb = Double.longBitsToDouble(b.rttBits());
    if (ea == 0 || eb == 0) {
      long now = ticker.nanoTime();
      return cost(b, wb, now) < cost(a, wa, now);
    }
    return costsLess(eb * exp((b.rttStamp() - a.rttStamp()) / tauNanos), b.pending(), wb, ea,
        a.pending(), wa);
  }

  /**
   * Finagle's comparison of two costs, {@code e × (pending + 1) / weight}, for estimates
   * already decayed to the same time: whether b's is strictly lower. Cross-multiplied by the
   * weights, no division.
   */
  static boolean costsLess(double eb, int pb, int wb, double ea, int pa, int wa) {
    return eb * (pb + 1) * wa < ea * (pa + 1) * wb;
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
  double cost(EwmaNode<?> node, int weight, long now) {
    double est = decayed(node, now);
    int pending = node.pending();
    if (est == 0 && pending != 0) {
      return (PENALTY + pending) / weight;
    }
    return est * (pending + 1) / weight;
  }
}
