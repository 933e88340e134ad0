package dev.ballast.core.loadaware;

import dev.ballast.core.BalancerConfig;
import dev.ballast.core.Endpoint;
import dev.ballast.core.Node;
import dev.ballast.core.engine.AbstractBalancer;
import dev.ballast.core.engine.Snapshot;
import dev.ballast.core.load.LoadReport;
import dev.ballast.core.load.WeightedRoundRobinConfig;
import dev.ballast.core.loadaware.P2cPeakEwma.EwmaNode;
import dev.ballast.core.loadaware.ReportedLoad.ReportNode;

/**
 * P2C by server-reported load, latency the tie-break: of two nodes drawn in proportion to their
 * reported capacity, take the one with fewer of this client's requests in flight per unit of
 * that capacity, {@code (pending + 0.5) / capacity}, the capacity being the report's own A58
 * weight {@code qps / (utilization + eps / qps × errorUtilizationPenalty)} ({@link
 * LoadReport#weight}) times a correction that steers the servers' reported utilization to
 * their mean (below); when the two costs are within a factor {@value #TIE} of each other, or
 * either node has no report, take the one {@link P2cPeakEwma} would take (peak-EWMA latency
 * times pending requests).
 *
 * <p>Why not the utilization alone: a server samples it now and then (ORCA servers once a
 * second or so), and every pick until the next sample would go to the server that last looked
 * idle, which then looks busiest: a herd that swings from server to server (in the simulator's
 * {@code capacity} scenario, max / mean utilization 1.41 and a p99 of 770 ms, worse than round
 * robin's). Capacity moves slowly (it is how much a server does per unit of utilization), and
 * the requests in flight move with every pick, so the choice follows both. Unlike {@link
 * WeightedRoundRobin}'s weights, a report's capacity counts in the costs from the next pick,
 * with no blackout: for servers whose capacity changes faster than weights follow.
 *
 * <p>Candidates are drawn in proportion to the reported capacities (an alias table over them,
 * scaled as {@link WeightedRoundRobin}'s weights and made again each {@link
 * WeightedRoundRobinConfig#weightUpdatePeriod()} when they moved), since a node drawn uniformly
 * is a candidate in only 2 of n picks: a server with half the capacity of four could never get
 * half the calls.
 *
 * <p>Why {@code + 0.5}: a pending count is an integer sample of a load that is continuous on
 * average (the usual continuity correction); with {@code pending / capacity} an idle small
 * server beats a large one holding one request, though the large one has cores to spare, and
 * with {@code (pending + 1) / capacity}, the expected wait, the large server wins too often, as
 * the draws already favour it.
 *
 * <p>Equal requests in flight per unit of capacity are not equal utilization, though (a server
 * of more cores queues fewer of its requests), so each capacity is also multiplied by a
 * correction that a feedback loop on the reported utilizations moves until every server runs
 * at their mean (Dropbox's Robinhood; see {@code UtilizationFeedback}): in the simulator's
 * {@code capacity} scenario, max / mean utilization 1.04 to 1.07 without it (seeds 1 to 5), 1.00
 * to 1.02 with it. The report's utilization is read there only, never as the cost itself. A lone
 * caller with one call at a time sends most calls to the largest server, which has the most
 * room.
 *
 * <p>Reports are believed within a bound of what the client measures itself: a node that its
 * reports make the cheaper candidate does not win on them when its peak-EWMA latency (which a
 * failure raises by the failure penalty) is more than {@value #BOUND} times the other candidate's
 * or the nodes' median (taken at each weight update), either taken as at least 5 ms (below that,
 * scheduling noise sets identical servers' peaks further apart than the bound on a busy host);
 * latency then decides, as for nodes without reports, and probes the node now and then. The median
 * is there because the draws follow the reported capacities: a liar is a candidate in nearly every
 * pick, and would win every pick against a candidate whose estimate is itself high. A server that
 * reports itself idle while it answers slowly (a bug, a stuck reporter, a lie) would otherwise take
 * nearly every call: in {@code P2cUtilizationTest}, a server 20 times slower than three others,
 * reporting utilization 10^-6, takes 95 to 98% of the calls without the bound and 0.1 to 1.1% with
 * it (1, 8 and 32 calls in flight). Honest servers stay inside it: at equal utilization their
 * latencies are within peak EWMA's noise (2 times) of each other, and one so loaded that it answers
 * 4 times slower than the others is better judged by latency. A measured signal as a check on
 * reported load follows Dubbo's {@code AdaptiveLoadBalance}, which multiplies a provider's reported
 * CPU load by the latency and the calls in flight the consumer counts (a product, so a near-zero
 * report still wins there), Dropbox's Robinhood, which takes the larger of a node's CPU utilization
 * and its requests in flight so that a node queueing requests on an idle CPU is not fed more, and
 * Prequal (Wydrowski et al., NSDI 2024), which orders candidates by one signal only among those
 * another signal does not rule out ("hot" by requests in flight).
 *
 * <p>A report with any bad value (NaN, an infinity, a value out of range) is no report: dropped
 * and counted ({@link #rejectedValues()}), never read as a tiny weight.
 *
 * <p>A report holds for {@link WeightedRoundRobinConfig#weightExpirationPeriod()} (3 min): one
 * that much older than the other candidate's counts as none in the costs (so that they read no
 * clock; the draws' update reads it once in 32 picks). Feed it
 * reports with {@link Node#reportLoad} and completions with {@link Node#complete}; it takes
 * {@link P2cPeakEwma}'s settings ({@link BalancerConfig#decayTime()}, {@link
 * BalancerConfig#defaultRtt()}, {@link BalancerConfig#failurePenalty()}). Endpoint weights
 * multiply the reported capacity; slow start does not apply.
 *
 * <p>Not designed for extension: it is not final only so that its deprecated alias {@code
 * dev.ballast.core.P2cUtilization} can extend it, until the alias goes in the next version.
 *
 * @param <T> the thing being balanced
 */
public class P2cUtilization<T> extends AbstractBalancer<T> {

  /** The algorithm's name: {@code p2c_utilization}. */
  public static final String NAME = "p2c_utilization";

  // The continuity correction of a pending count (see the class comment).
  private static final double HALF = 0.5;

  /** Costs within this ratio of each other (5%) are taken as equal; latency then decides. */
  public static final double TIE = 1.05;

  /**
   * How many times slower than the other candidate the client may measure a node that its
   * reports make the cheaper, at most (4: twice the noise at which peak-EWMA tells two nodes
   * apart): beyond it the reports are not believed and latency decides (see the class comment).
   */
  public static final double BOUND = 4;

  // Latencies under 5 ms are compared as 5 ms by the bound: below that, a busy host's
  // scheduling and a collector's pause set identical servers' peaks more than BOUND apart.
  private static final double NOISE_NANOS = 5_000_000;

  private final long period;

  /** Creates a balancer with lb-core's and A58's defaults. */
  public P2cUtilization() {
    this(BalancerConfig.defaults(), WeightedRoundRobinConfig.defaults());
  }

  /** Creates a balancer with A58's defaults for how long a report holds. */
  public P2cUtilization(BalancerConfig config) {
    this(config, WeightedRoundRobinConfig.defaults());
  }

  /** Creates a balancer; {@code reports} gives how long a report holds and the error penalty. */
  public P2cUtilization(BalancerConfig config, WeightedRoundRobinConfig reports) {
    super(NAME, config, new ReportedLoad(config.ticker(), reports,
        new PeakEwma(config.ticker(), config.decayTime(), config.defaultRtt(),
            config.failurePenalty())));
    this.period = reports.weightUpdatePeriod().toNanos();
  }

  /** Returns how many bad values the reports fed to its nodes held (each was ignored). */
  public long rejectedValues() {
    return ((ReportedLoad) metric).rejected.sum();
  }

  @Override
  protected Snapshot<T> snapshot(Node<T>[] nodes, int[] weights, int[] ignoredLevels) {
    ReportedLoad load = (ReportedLoad) metric;
    return new ReportSnapshot<>(NAME, nodes, config, new UtilizationFeedback(load, nodes.length),
        (ns, scaled) -> new P2cSnapshot<>(NAME, ns, weights, scaled, config) {
          // the nodes as this policy's own, cast once here rather than per pick
          private final ReportNode<T>[] reporting = ReportNode.all(this.nodes);

          @Override
          protected boolean cheaper(int b, int a) {
            return takes(b, a, 0);
          }

          @Override
          protected boolean takes(int b, int a, long r) {
            ReportNode<T> na = reporting[a];
            ReportNode<T> nb = reporting[b];
            int byLoad = byReports(load, nb, this.weights[b], na, this.weights[a]);
            if (byLoad != 0) {
              return byLoad > 0;
            }
            return load.latency.takes(nb, this.weights[b], na, this.weights[a], r,
                this.nodes.length);
          }
        }, period);
  }

  /**
   * Returns 1 if b costs less than a by more than {@link #TIE}, -1 if more, 0 if they are close
   * or either has no report (never, none with a capacity, or one older than the other's by the
   * expiration period).
   */
  static int byReports(ReportedLoad load, ReportNode<?> b, int wb, ReportNode<?> a, int wa) {
    ReportedLoad.State ra = a.reported;
    ReportedLoad.State rb = b.reported;
    double ca = ra.capacity * ra.correction * wa;
    double cb = rb.capacity * rb.correction * wb;
    long sa = ra.utilizationStamp;
    long sb = rb.utilizationStamp;
    if (!(ca > 0 && cb > 0) || sa == ReportedLoad.NEVER || sb == ReportedLoad.NEVER
        || Math.abs(sa - sb) >= load.expirationNanos) {
      return 0;
    }
    double costA = (a.pending() + HALF) / ca;
    double costB = (b.pending() + HALF) / cb;
    if (costB * TIE < costA) {
      return believed(load, b, a) ? 1 : 0;
    }
    if (costA * TIE < costB) {
      return believed(load, a, b) ? -1 : 0;
    }
    return 0;
  }

  /**
   * Returns whether node {@code w}, cheaper than node {@code l} by the reports, may win on them:
   * the client measures it at most {@link #BOUND} times slower than {@code l} and than the
   * nodes' median ({@link ReportedLoad#medianRtt}). Peak-EWMA estimates, {@code l}'s decayed to
   * the time of {@code w}'s as {@link P2cPeakEwma} compares them (no clock).
   */
  static boolean believed(ReportedLoad load, EwmaNode<?> w, EwmaNode<?> l) {
    double ew = Double.longBitsToDouble(w.rttBits());
    double el = Double.longBitsToDouble(l.rttBits())
        * PeakEwma.exp((l.rttStamp() - w.rttStamp()) / load.latency.tauNanos);
    double median = load.medianRtt;
    return ew <= BOUND * Math.max(el, NOISE_NANOS)
        && (median == 0 || ew <= BOUND * Math.max(median, NOISE_NANOS));
  }
}
