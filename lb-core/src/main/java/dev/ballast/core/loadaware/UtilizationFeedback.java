package dev.ballast.core.loadaware;

import dev.ballast.core.Node;
import dev.ballast.core.loadaware.P2cPeakEwma.EwmaNode;
import dev.ballast.core.loadaware.ReportedLoad.ReportNode;
import java.util.Arrays;

/**
 * {@link P2cUtilization}'s capacities, each times a correction that a feedback loop on the
 * reported utilization moves towards the mean (Dropbox's Robinhood, "Robinhood: Dropbox's load
 * balancing service", 2024: a controller per server whose set point is the servers' mean
 * utilization; here an integral term alone, kept by each client).
 *
 * <p>Why: a cost of requests in flight per unit of capacity balances those requests, not the
 * servers' utilization. At the same utilization a server of more cores holds more requests but
 * fewer queued per core (queueing's pooling effect), so the costs that equalize requests leave
 * the servers' utilization apart, by an amount that depends on the load: in the simulator's
 * {@code capacity} scenario the large server ran at 0.48 and the small ones at 0.42. The
 * report says which servers run above the mean; the correction moves the draws and the costs
 * until none does, whatever the load and whatever the cost's own bias.
 *
 * <p>Once per weight update period, each node whose report is new since the last update moves
 * its correction by {@code exp(GAIN × (mean − utilization) / mean)}, the mean taken over the
 * nodes with a current report. The error is relative and linear, so that its mean is zero
 * exactly when the utilizations are equal (a logarithmic error would push load towards the
 * servers whose samples are noisiest, the small ones); the corrections' geometric mean is then
 * brought back to 1, so that they cannot all drift together. Many clients each running this
 * loop move their own shares the same way, as one client would. Corrections are held within {@code 1 /
 * BOUND} and {@code BOUND}: they correct a bias, they are not a second weight.
 */
final class UtilizationFeedback implements ReportSnapshot.Reader {

  /**
   * The share of the relative error taken each update period: a bias is gone in about four
   * periods (4 s by default, within A58's 10 s blackout), and the noise of a one-second
   * utilization sample reaches the correction damped to about 0.4 of it.
   */
  static final double GAIN = 0.25;

  /** Corrections stay within 1/4 and 4 (the simulator's stay within 0.8 and 1.25). */
  static final double BOUND = 4;

  private final ReportedLoad load;
  // the update's scratch (updating flag held): the nodes' latency estimates, sorted
  private final double[] rtts;

  UtilizationFeedback(ReportedLoad load, int nodes) {
    this.load = load;
    this.rtts = new double[nodes];
  }

  @Override
  public double weight(ReportedLoad.State s, long now) {
    return load.capacity(s, now) * s.correction;
  }

  @Override
  public void beforeRead(Node<?>[] nodes, long now) {
    // the reference of P2cUtilization's bound: the median latency estimate (the lower of the
    // two middle ones), so that one slow node, or one very fast, does not move it
    for (int i = 0; i < nodes.length; i++) {
      rtts[i] = load.latency.decayed((EwmaNode<?>) nodes[i], now);
    }
    Arrays.sort(rtts);
    load.medianRtt = rtts.length == 0 ? 0 : rtts[(rtts.length - 1) / 2];
    double sum = 0;
    int current = 0;
    for (Node<?> node : nodes) {
      ReportedLoad.State s = ReportNode.of(node);
      if (load.capacity(s, now) > 0) {
        sum += s.utilization;
        current++;
      }
    }
    if (current < 2) {
      return;
    }
    double mean = sum / current;
    boolean stepped = false;
    double logSum = 0;
    for (Node<?> node : nodes) {
      ReportedLoad.State s = ReportNode.of(node);
      long stamp = s.utilizationStamp;
      if (load.capacity(s, now) > 0) {
        if (stamp != s.fedStamp) {
          s.fedStamp = stamp;
          double error = Math.max(-1, Math.min(1, (mean - s.utilization) / mean));
          s.correction = bounded(s.correction * Math.exp(GAIN * error));
          stepped = true;
        }
        logSum += Math.log(s.correction);
      }
    }
    if (stepped) {
      // Only the corrections' ratios matter (draws and costs compare nodes), so their geometric
      // mean is kept at 1: errors that do not sum to zero (a node without a new report, a
      // clamped error) cannot drift them all together towards a bound.
      double g = Math.exp(logSum / current);
      for (Node<?> node : nodes) {
        ReportedLoad.State s = ReportNode.of(node);
        if (load.capacity(s, now) > 0) {
          s.correction = bounded(s.correction / g);
        }
      }
    }
  }

  private static double bounded(double correction) {
    return Math.max(1 / BOUND, Math.min(BOUND, correction));
  }
}
