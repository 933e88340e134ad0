package dev.ballast.core.loadaware;

import dev.ballast.core.BalancerConfig;
import dev.ballast.core.Endpoint;
import dev.ballast.core.Node;
import dev.ballast.core.engine.AbstractBalancer;
import dev.ballast.core.engine.EngineNode;
import dev.ballast.core.engine.LoadMetric;
import dev.ballast.core.engine.Snapshot;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * P2C over peak-EWMA latency (Finagle's P2CPeakEwma, tower's and Linkerd's peak_ewma): of two
 * random nodes, take the one of lower cost {@code ewma_rtt * (pending + 1) / weight}.
 *
 * <p>The RTT estimate jumps to any sample above it and otherwise decays toward new samples with
 * time constant {@link BalancerConfig#decayTime()} (default 10 s), so a node that turns slow loses
 * traffic at once. New nodes start at {@link BalancerConfig#defaultRtt()} (default 30 ms, as
 * Linkerd) instead of zero. A failure raises the estimate (up to doubling it; {@link
 * BalancerConfig#failurePenalty()}), so that a backend that fails fast does not look like the
 * fastest, which a latency-only EWMA makes it. Feed it with {@link Node#complete(long, boolean)} or
 * {@link Node#completeSince(long, boolean)}.
 *
 * <p>Unlike Finagle's and tower's, an estimate that nothing has renewed for a while is not left to
 * decay alone, which starves a node for a minute after one slow call (a cold first call, a backend
 * that was slow and recovered): as Prequal probes replicas to keep its signals fresh (NSDI 2024), a
 * node whose last sample is older than its rival's by 16 of the rival's estimates (the time in
 * which a node in traffic forgets a peak; at most 100 ms) gets one call (a probe; at most one in
 * flight per node, a stale node once in 16 picks), and that call's answer replaces the stale
 * estimate. A probe that finds the node still slow spaces the next by four times its latency;
 * after failures faster than 100 ms (errors, not slowness) the next probe waits 100 ms, doubling
 * up to 1 s. So a node is back in its share within 16 of its rivals' calls (100 ms at most) of
 * answering fast again, within a second once it stops failing, and a slow or failing one still
 * loses its traffic at its first slow answer or failure. So that noise does
 * not skew identical nodes, a sample weighs at least 1/16 (as C3's per-response average) and
 * estimates within 2 times of each other count as equal (fewer pending wins, then the node heard
 * from less recently). The details and their reasons are on the metric ({@code
 * PeakEwma}).
 *
 * <p>Not designed for extension: it is not final only so that its deprecated alias {@code
 * dev.ballast.core.P2cPeakEwma} can extend it, until the alias goes in the next version.
 *
 * @param <T> the thing being balanced
 */
public class P2cPeakEwma<T> extends AbstractBalancer<T> {

  /** The algorithm's name: {@code p2c_peak_ewma}. */
  public static final String NAME = "p2c_peak_ewma";

  /** Creates a balancer with {@link BalancerConfig#defaults()}. */
  public P2cPeakEwma() {
    this(BalancerConfig.defaults());
  }

  /** Creates a balancer; uses the config's ticker, decay time, default RTT, random source, effort and panic settings. */
  public P2cPeakEwma(BalancerConfig config) {
    super(NAME, config,
        new PeakEwma(config.ticker(), config.decayTime(), config.defaultRtt(),
            config.failurePenalty()));
  }

  @Override
  protected Snapshot<T> snapshot(Node<T>[] nodes, int[] weights, int[] levels) {
    EwmaNode<T>[] ewma = ewmaNodes(nodes);
    return new P2cSnapshot<>(NAME, nodes, weights, levels, config) {
      @Override
      protected boolean cheaper(int b, int a) {
        // the nodes' own metric: it keeps their estimates, with its decay time
        EwmaNode<T> na = ewma[a];
        return na.ewma.cheaper(ewma[b], this.weights[b], na,
            this.weights[a]);
      }

      @Override
      protected boolean takes(int b, int a, long r) {
        EwmaNode<T> na = ewma[a];
        return na.ewma.takes(ewma[b], this.weights[b], na,
            this.weights[a], r, this.nodes.length);
      }
    };
  }

  /** The nodes as this policy's own, cast once when a snapshot is built, not per pick. */
  @SuppressWarnings("unchecked")
  static <T> EwmaNode<T>[] ewmaNodes(Node<T>[] nodes) {
    EwmaNode<T>[] out = new EwmaNode[nodes.length];
    for (int i = 0; i < nodes.length; i++) {
      out[i] = (EwmaNode<T>) nodes[i];
    }
    return out;
  }

  /**
   * A node of the balancers that time requests ({@link P2cPeakEwma}, {@link P2cUtilization}): the
   * peak-EWMA estimate and its probe state, which {@link PeakEwma} reads and writes.
   */
  static sealed class EwmaNode<T> extends EngineNode<T> permits ReportedLoad.ReportNode {

    private static final VarHandle RTT_BITS;
    private static final VarHandle RTT_STAMP;

    static {
      try {
        MethodHandles.Lookup l = MethodHandles.lookup();
        RTT_BITS = l.findVarHandle(EwmaNode.class, "rttBits", long.class);
        RTT_STAMP = l.findVarHandle(EwmaNode.class, "rttStamp", long.class);
      } catch (ReflectiveOperationException e) {
        throw new ExceptionInInitializerError(e);
      }
    }

    // the estimate in nanoseconds (double bits) and when it was last observed
    private volatile long rttBits;
    private volatile long rttStamp;
    // how much more than stale its last sample must be for a probe
    private volatile long probeGap;
    // a probe is in flight, whose answer replaces the estimate
    private volatile boolean probed;

    // the metric that keeps the estimate (its decay time and clock); null only in a report
    // node of a balancer that does not time requests (ReportNode)
    final PeakEwma ewma;

    /** A node that times requests with {@code ewma}, if not null. */
    EwmaNode(Endpoint endpoint, T value, LoadMetric madeBy, PeakEwma ewma,
        Runnable healthListener) {
      super(endpoint, value, madeBy, healthListener);
      this.ewma = ewma;
      if (ewma != null) {
        rttBits = Double.doubleToRawLongBits(ewma.defaultRttNanos);
        rttStamp = ewma.ticker.nanoTime();
      }
    }

    @Override
    protected void onCancel() {
      endProbe(); // a probe that was never sent answers nothing
    }

    @Override
    protected void onComplete(long latencyNanos, boolean success) {
      ewma.record(this, ewma.ticker.nanoTime(), latencyNanos, success);
    }

    @Override
    protected void onCompleteSince(long startNanos, boolean success) {
      long now = ewma.ticker.nanoTime();
      ewma.record(this, now, Math.max(0, now - startNanos), success);
    }

    @Override
    protected double rttEstimate() {
      return ewma.decayed(this, ewma.ticker.nanoTime());
    }

    long rttBits() {
      return rttBits;
    }

    long rttStamp() {
      return rttStamp;
    }

    boolean casRtt(long expectedBits, long newBits, long stamp) {
      if (RTT_BITS.compareAndSet(this, expectedBits, newBits)) {
        // A release store, not a volatile one: the CAS before it is the fence readers need.
        RTT_STAMP.setRelease(this, stamp);
        return true;
      }
      return false;
    }

    long probeGap() {
      return probeGap;
    }

    /** Sets the probe gap; writes only on a change, as it seldom changes. */
    void setProbeGap(long gap) {
      if (probeGap != gap) {
        probeGap = gap;
      }
    }

    boolean probed() {
      return probed;
    }

    /** Marks a probe sent (a rare write on the pick's path). */
    void startProbe() {
      probed = true;
    }

    /** Ends a probe; a probe that was never sent (cancelled) answers nothing. */
    void endProbe() {
      if (probed) {
        probed = false;
      }
    }

    /** Sets the estimate and its stamp (tests and a new node). */
    void initRtt(double rttNanos, long stamp) {
      rttBits = Double.doubleToRawLongBits(rttNanos);
      rttStamp = stamp;
    }
  }
}
