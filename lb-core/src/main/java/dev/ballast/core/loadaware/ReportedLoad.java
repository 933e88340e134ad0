package dev.ballast.core.loadaware;

import dev.ballast.core.Endpoint;
import dev.ballast.core.Node;
import dev.ballast.core.Ticker;
import dev.ballast.core.engine.EngineNode;
import dev.ballast.core.engine.LoadMetric;
import dev.ballast.core.load.LoadReport;
import dev.ballast.core.load.WeightedRoundRobinConfig;
import dev.ballast.core.loadaware.P2cPeakEwma.EwmaNode;
import java.util.concurrent.atomic.LongAdder;

/**
 * The load metric of the balancers that read servers' own reports ({@link WeightedRoundRobin},
 * {@link P2cUtilization}): each node keeps its latest weight and utilization ({@link State}).
 *
 * <p>The weight follows gRFC A58: a report's weight is {@code qps / (utilization + eps / qps ×
 * errorUtilizationPenalty)} ({@link LoadReport#weight}); a report giving none (no positive
 * utilization or qps) is ignored and counted, and a report with any bad value ({@link
 * LoadReport#rejected()}: NaN, an infinity, a value out of range, a malformed field) is dropped
 * whole, its values counted: the node keeps its previous report, or has none. A weight counts once
 * reports have been coming for the blackout period ({@code nonEmptySince}), and stops counting when
 * no report came for the expiration period, which also restarts the blackout. Reads and writes are
 * plain volatile fields: reports racing each other keep the last one, as gRPC's own does.
 *
 * <p>When latency is given ({@link P2cUtilization}), completions feed a peak EWMA of the
 * latency as {@link P2cPeakEwma}'s, for the tie-break.
 */
final class ReportedLoad extends LoadMetric {

  /** A time that never was: no report yet, or the weight expired. */
  static final long NEVER = Long.MIN_VALUE;

  final Ticker ticker;
  final long blackoutNanos;
  final long expirationNanos;
  final double errorPenalty;
  final WeightedRoundRobinConfig config;
  /** The latency estimate for the tie-break, or null when it is not needed (weights alone). */
  final PeakEwma latency;
  /**
   * The median of the nodes' latency estimates at the last weight update, or 0 before any
   * ({@link P2cUtilization}'s bound; written by {@link UtilizationFeedback}).
   */
  volatile double medianRtt;
  final LongAdder rejected = new LongAdder();
  final LongAdder unusable = new LongAdder();

  ReportedLoad(Ticker ticker, WeightedRoundRobinConfig config, PeakEwma latency) {
    this.ticker = ticker;
    this.blackoutNanos = config.blackoutPeriod().toNanos();
    this.expirationNanos = config.weightExpirationPeriod().toNanos();
    this.errorPenalty = config.errorUtilizationPenalty();
    this.config = config;
    this.latency = latency;
  }

  /** A node's reported load; written by reports, read by picks and weight updates. */
  static final class State {
    volatile double weight;
    volatile long nonEmptySince = NEVER;
    volatile long lastUpdated = NEVER;
    volatile double utilization;
    volatile long utilizationStamp = NEVER;
    // the latest report's own weight (its capacity: qps per unit of utilization), unlike
    // weight, taken at once with no blackout; 0 if it gave none
    volatile double capacity;
    // P2cUtilization's correction of the capacity (UtilizationFeedback), and the stamp of the
    // report it last read (written under ReportSnapshot's updating flag)
    volatile double correction = 1;
    long fedStamp = NEVER;
  }

  @Override
  protected <T> EngineNode<T> newNode(Endpoint endpoint, T value, Runnable healthListener) {
    return new ReportNode<>(endpoint, value, this, healthListener);
  }

  /** Takes a node's report: its weight and utilization, or counts it if it gives none. */
  void onReport(ReportNode<?> node, LoadReport report) {
    if (report.rejected() > 0) {
      // a report with a garbage value (NaN, an infinity, out of range, malformed) is no
      // report: its other values are not trusted either, and the node keeps what it had
      rejected.add(report.rejected());
      unusable.increment();
      return;
    }
    State s = node.reported;
    long now = ticker.nanoTime();
    double u = config.utilization(report);
    double w = report.weight(errorPenalty, u);
    s.utilization = u;
    s.capacity = w;
    s.utilizationStamp = now;
    if (w <= 0) {
      if (latency == null) {
        unusable.increment(); // weights need utilization and qps; P2C needs utilization only
      }
      return;
    }
    if (s.nonEmptySince == NEVER) {
      s.nonEmptySince = now;
    }
    s.lastUpdated = now;
    s.weight = w;
  }

  /**
   * Returns the capacity the node's latest report gave ({@link LoadReport#weight}), at once and
   * with no blackout, or 0 if it gave none or is older than the expiration period.
   */
  double capacity(State s, long now) {
    long stamp = s.utilizationStamp;
    return stamp == NEVER || now - stamp >= expirationNanos ? 0 : s.capacity;
  }

  /**
   * Returns the node's weight at {@code now} per A58, or 0 when it has none: never reported,
   * expired (which restarts its blackout) or still in its blackout period.
   */
  double weight(State s, long now) {
    long last = s.lastUpdated;
    if (last == NEVER || now - last >= expirationNanos) {
      s.nonEmptySince = NEVER;
      return 0;
    }
    long since = s.nonEmptySince;
    if (blackoutNanos > 0 && (since == NEVER || now - since < blackoutNanos)) {
      return 0;
    }
    return s.weight;
  }

  /**
   * A node of the balancers that read load reports ({@link WeightedRoundRobin}, {@link
   * P2cUtilization}): what its server last reported, kept by {@link ReportedLoad}. It extends the
   * peak-EWMA node because {@link P2cUtilization} also times requests; {@link WeightedRoundRobin}
   * leaves those fields unused.
   */
  static final class ReportNode<T> extends EwmaNode<T> {

    final ReportedLoad.State reported = new ReportedLoad.State();
    private final ReportedLoad load;

    ReportNode(Endpoint endpoint, T value, ReportedLoad load, Runnable healthListener) {
      super(endpoint, value, load, load.latency, healthListener);
      this.load = load;
    }

    @Override
    protected void onReport(LoadReport report) {
      load.onReport(this, report);
    }

    @Override
    protected boolean takesReports() {
      return true;
    }

    // without a latency metric (weights alone), completions feed nothing

    @Override
    protected void onCancel() {
      if (ewma != null) {
        super.onCancel();
      }
    }

    @Override
    protected void onComplete(long latencyNanos, boolean success) {
      if (ewma != null) {
        super.onComplete(latencyNanos, success);
      }
    }

    @Override
    protected void onCompleteSince(long startNanos, boolean success) {
      if (ewma != null) {
        super.onCompleteSince(startNanos, success);
      }
    }

    @Override
    protected double rttEstimate() {
      return ewma == null ? -1 : super.rttEstimate();
    }

    /** Returns the nodes as report nodes (made by a {@link ReportedLoad}), cast once. */
    @SuppressWarnings("unchecked")
    static <T> ReportNode<T>[] all(Node<T>[] nodes) {
      ReportNode<T>[] out = new ReportNode[nodes.length];
      for (int i = 0; i < nodes.length; i++) {
        out[i] = (ReportNode<T>) nodes[i];
      }
      return out;
    }

    /** Returns the report state of a node made by {@link ReportedLoad}. */
    static ReportedLoad.State of(Node<?> node) {
      return ((ReportNode<?>) node).reported;
    }
  }
}
