package dev.ballast.core.loadaware;

import dev.ballast.core.BalancerConfig;
import dev.ballast.core.Node;
import dev.ballast.core.engine.Snapshot;
import dev.ballast.core.loadaware.ReportedLoad.ReportNode;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The snapshot of the balancers that weigh nodes by their servers' reports: the nodes and an
 * inner snapshot over their current weights, made again when the weights move. One pick in 32
 * reads the clock, and the first past the update period reads the weights again (one picker at
 * a time; the others go on with the current inner snapshot), so no thread of lb-core runs in the
 * background and a pick allocates nothing.
 *
 * <p>Weights are scaled to integers as gRFC A58's scheduler does before it: nodes without a
 * weight get the mean of the others, the others are held within 0.1 and 10 times that mean (so
 * that no node starves or floods), and the largest becomes at most 1000 (fewer at many nodes,
 * so that a ring of them holds about 100,000 slots at most). With fewer than two weights there
 * are none: every node counts alike.
 */
final class ReportSnapshot<T> extends Snapshot<T> {

  // A58's bounds on a weight, relative to the mean of the known weights.
  static final double MAX_RATIO = 10;
  static final double MIN_RATIO = 0.1;
  // The largest weight is scaled to at most MAX_SCALE, and the sum to about RING_BUDGET, but
  // the largest never below MIN_SCALE.
  static final int MAX_SCALE = 1000;
  static final int MIN_SCALE = 10;
  static final int RING_BUDGET = 100_000;

  /** Reads a node's weight at a time; 0 for none. */
  interface Reader {
    double weight(ReportedLoad.State state, long now);

    /** Called once per update before the weights are read (the updating flag held). */
    default void beforeRead(Node<?>[] nodes, long now) {}
  }

  /** Makes the inner snapshot over the scaled weights, or over none (null). */
  interface Inner<T> {
    Snapshot<T> over(Node<T>[] nodes, int[] scaled);
  }

  private final BalancerConfig config;
  private final Reader reader;
  private final Inner<T> inner;
  private final long period;
  private final AtomicBoolean updating = new AtomicBoolean();
  // the update's scratch (updating flag held): the weights read, scaled
  private final double[] read;
  private final int[] next;
  // the scaled weights of the current inner snapshot, or null for none (updating flag held)
  private int[] current;
  private volatile Snapshot<T> snapshot;
  private volatile long nextUpdate;
  private int counter; // spaces clock readings out; needs no atomicity

  ReportSnapshot(String name, Node<T>[] nodes, BalancerConfig config, Reader reader,
      Inner<T> inner, long period) {
    super(name, nodes, config);
    this.config = config;
    this.reader = reader;
    this.inner = inner;
    this.period = period;
    this.read = new double[nodes.length];
    this.next = new int[nodes.length];
    this.snapshot = inner.over(nodes, null);
    update(config.ticker().nanoTime(), true);
  }

  @Override
  public Node<T> next() {
    if ((++counter & 31) == 0) {
      long now = config.ticker().nanoTime();
      if (now - nextUpdate >= 0) {
        update(now, false);
      }
    }
    return snapshot.next();
  }

  /** Reads the weights at {@code now} and makes a new inner snapshot if they moved. */
  void update(long now, boolean force) {
    if (!updating.compareAndSet(false, true)) {
      return;
    }
    try {
      if (!force && now - nextUpdate < 0) {
        return; // another picker just did it
      }
      nextUpdate = now + period;
      reader.beforeRead(nodes, now);
      for (int i = 0; i < nodes.length; i++) {
        read[i] = reader.weight(ReportNode.of(nodes[i]), now);
      }
      if (!scaled(read, scale(nodes.length), next)) {
        if (current != null) {
          current = null;
          snapshot = inner.over(nodes, null);
        }
        return;
      }
      if (!Arrays.equals(next, current)) {
        current = next.clone();
        snapshot = inner.over(nodes, current);
      }
    } finally {
      updating.set(false);
    }
  }

  /** Returns the largest scaled weight for n nodes: a ring holds about n × this at most. */
  static int scale(int n) {
    return Math.max(MIN_SCALE, Math.min(MAX_SCALE, RING_BUDGET / n));
  }

  /**
   * Scales the weights to integers into {@code out} (see the class comment); returns false when
   * fewer than two nodes have a weight, leaving {@code out} untouched.
   */
  static boolean scaled(double[] w, int scale, int[] out) {
    int known = 0;
    double sum = 0;
    double max = 0;
    for (double x : w) {
      if (x > 0) {
        known++;
        sum += x;
        max = Math.max(max, x);
      }
    }
    if (known < 2) {
      return false;
    }
    double mean = sum / known;
    max = Math.min(max, MAX_RATIO * mean);
    double factor = scale / max;
    int floor = (int) Math.max(1, Math.ceil(factor * mean * MIN_RATIO));
    for (int i = 0; i < w.length; i++) {
      double x = w[i] > 0 ? Math.min(w[i], max) : mean;
      out[i] = (int) Math.max(floor, Math.round(factor * x));
    }
    return true;
  }
}
