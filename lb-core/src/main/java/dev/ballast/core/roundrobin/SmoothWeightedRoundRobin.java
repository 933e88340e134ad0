package dev.ballast.core.roundrobin;

import dev.ballast.core.Availability;
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
 * nginx's smooth weighted round robin (ngx_http_upstream_round_robin.c), kept as the baseline.
 *
 * <p>Per pick, every open node adds its effective weight to its current weight; the node with
 * the largest current weight wins and loses the total. Weights {5,1,1} give A A B A C A A. A
 * failure lowers a node's effective weight by {@code weight / max_fails}; each pick raises it by
 * one until it is back at the weight. The pick is O(N) and, as nginx does with its upstream
 * zone lock, serialised: this is the cost that {@link Vnswrr} removes.
 *
 * <p>Not designed for extension: it is not final only so that its deprecated alias {@code
 * dev.ballast.core.SmoothWeightedRoundRobin} can extend it, until the alias goes in the next version.
 *
 * @param <T> the thing being balanced
 */
public class SmoothWeightedRoundRobin<T> extends AbstractBalancer<T> {

  /** The algorithm's name: {@code swrr}. */
  public static final String NAME = "swrr";

  /** Creates a balancer with {@link BalancerConfig#defaults()}. */
  public SmoothWeightedRoundRobin() {
    this(BalancerConfig.defaults());
  }

  /** Creates a balancer; uses the config's max-fails, random source and panic settings. */
  public SmoothWeightedRoundRobin(BalancerConfig config) {
    super(NAME, config, new Failures(config.maxFails()));
  }

  @Override
  protected Snapshot<T> snapshot(Node<T>[] nodes, int[] weights, int[] levels) {
    return new SwrrSnapshot<>(nodes, weights, levels, config);
  }

  private static final class SwrrSnapshot<T> extends Snapshot<T> {
    // The weights the effective weights recover to, and the slow-start level that scales a
    // node's effective weight (null when nothing ramps).
    private final int[] weights;
    private final int[] levels;
    private final long[] current;
    // the nodes as this policy's own, cast once here rather than once a node per pick
    private final SwrrNode<T>[] swrr;

    @SuppressWarnings("unchecked")
    SwrrSnapshot(Node<T>[] nodes, int[] weights, int[] levels, BalancerConfig config) {
      super(NAME, nodes, config);
      this.swrr = new SwrrNode[nodes.length];
      for (int i = 0; i < nodes.length; i++) {
        swrr[i] = (SwrrNode<T>) nodes[i];
      }
      this.levels = levels;
      this.weights = levels == null ? weights : unramped(weights, levels);
      this.current = new long[nodes.length];
    }

    private static int[] unramped(int[] weights, int[] levels) {
      int[] w = new int[weights.length];
      for (int i = 0; i < w.length; i++) {
        w[i] = weights[i] / levels[i];
      }
      return w;
    }

    @Override
    public synchronized Node<T> pick() {
      int best = -1;
      long total = 0;
      SwrrNode<T>[] swrr = this.swrr;
      for (int i = 0; i < swrr.length; i++) {
        SwrrNode<T> node = swrr[i];
        if (node.availability() != Availability.OPEN) {
          continue;
        }
        // the effective weight as it was, then raised by one towards the weight (nginx)
        long ew = node.recoverEffectiveWeight(weights[i]);
        if (levels != null) {
          ew *= levels[i]; // a slow-start ramp's level
        }
        current[i] += ew;
        total += ew;
        if (best < 0 || current[i] > current[best]) {
          best = i;
        }
      }
      if (best < 0) {
        return degraded(null);
      }
      current[best] -= total;
      return nodes[best];
    }

    @Override
    public Node<T> next() {
      return pick();
    }
  }

  /**
   * A node of {@link SmoothWeightedRoundRobin}: nginx's {@code effective_weight}, lowered on a
   * failure ({@link Failures}), raised by one per pick up to the weight, and reset
   * to the weight when an update changes it.
   */
  static final class SwrrNode<T> extends EngineNode<T> {

    private static final VarHandle EFFECTIVE_WEIGHT;

    static {
      try {
        EFFECTIVE_WEIGHT = MethodHandles.lookup()
            .findVarHandle(SwrrNode.class, "effectiveWeight", int.class);
      } catch (ReflectiveOperationException e) {
        throw new ExceptionInInitializerError(e);
      }
    }

    private volatile int effectiveWeight;
    private final int maxFails;

    SwrrNode(Endpoint endpoint, T value, Failures failures, Runnable healthListener) {
      super(endpoint, value, failures, healthListener);
      this.maxFails = failures.maxFails;
      effectiveWeight = endpoint.weight();
    }

    @Override
    protected void onComplete(long latencyNanos, boolean success) {
      if (!success) {
        dropEffectiveWeight(weight() / maxFails); // nginx: weight / max_fails
      }
    }

    @Override
    protected void weightChanged(int weight) {
      effectiveWeight = weight;
    }

    int effectiveWeight() {
      return effectiveWeight;
    }

    /**
     * Raises the effective weight by one if below the weight (nginx, once per pick loop) and
     * returns it as it was: one read of the field serves the pick and the recovery.
     */
    int recoverEffectiveWeight(int weight) {
      int ew = effectiveWeight;
      if (ew < weight) {
        EFFECTIVE_WEIGHT.compareAndSet(this, ew, ew + 1);
      }
      return ew;
    }

    /** Lowers the effective weight by {@code drop}, not below 0 (nginx: weight / max_fails). */
    void dropEffectiveWeight(int drop) {
      int ew;
      do {
        ew = effectiveWeight;
      } while (!EFFECTIVE_WEIGHT.weakCompareAndSet(this, ew, Math.max(0, ew - drop)));
    }
  }

  /** nginx SWRR's failure feedback: its nodes lower effective weight by weight/max_fails. */
  static final class Failures extends LoadMetric {
    final int maxFails;

    Failures(int maxFails) {
      this.maxFails = maxFails;
    }

    @Override
    protected <T> EngineNode<T> newNode(Endpoint endpoint, T value, Runnable healthListener) {
      return new SwrrNode<>(endpoint, value, this, healthListener);
    }
  }
}
