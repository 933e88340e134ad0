package dev.ballast.core.engine;

import dev.ballast.core.Availability;
import dev.ballast.core.BalancerConfig;
import dev.ballast.core.NoAvailableEndpointException;
import dev.ballast.core.Node;
import java.util.random.RandomGenerator;

/**
 * An immutable node array plus an algorithm's tables (Finagle's distributor). {@link #pick()}
 * asks the algorithm for up to {@code maxEffort} candidates and returns the first open one;
 * failing that, it scans every node once from a random start for an open one, and then either
 * picks anyway (panic mode: a busy node first) or throws.
 *
 * <p>Why a scan after the effort: with half the nodes down, P2C's 5 tries of two nodes each miss
 * with probability 0.25^5 &lt; 0.1%; the scan makes the miss impossible whenever any node is open,
 * at O(N) cost paid only in that degraded state.
 *
 * @param <T> the thing being balanced
 */
public abstract class Snapshot<T> {

  /** The algorithm's name, for errors. */
  protected final String name;
  /** The nodes, in the balancer's order; not to be written. */
  protected final Node<T>[] nodes;
  /** The balancer's random source ({@link BalancerConfig#random()}). */
  protected final RandomGenerator random;
  private final int maxEffort;
  private final boolean panicPick;

  // Slow start, set by the balancer before it publishes the snapshot: when the next ramping
  // node moves up a step (SlowStart.NEVER if none ramps), the weights before the ramp, and a
  // pick counter that needs no atomicity (it only spaces out clock readings).
  long nextStep = SlowStart.NEVER;
  int[] rampBase;
  int picks;

  /** Makes a snapshot of non-empty nodes, with the config's effort and panic settings. */
  protected Snapshot(String name, Node<T>[] nodes, BalancerConfig config) {
    this.name = name;
    this.nodes = nodes;
    this.random = config.random();
    this.maxEffort = config.maxEffort();
    this.panicPick = config.panicPick();
  }

  /** Returns the algorithm's next candidate, open or not. */
  public abstract Node<T> next();

  /**
   * Returns the first open node of up to {@code maxEffort} candidates, else one found by {@link
   * #degraded}; the caller counts the pick.
   *
   * @throws NoAvailableEndpointException if no node is open and panic picks are off
   */
  public Node<T> pick() {
    Node<T> first = null;
    for (int i = 0; i < maxEffort; i++) {
      Node<T> candidate = next();
      if (candidate.availability() == Availability.OPEN) {
        return candidate;
      }
      if (first == null) {
        first = candidate;
      }
    }
    return degraded(first);
  }

  /** Scans all nodes once for an open one; then panics or throws. */
  protected final Node<T> degraded(Node<T> candidate) {
    int n = nodes.length;
    int start = random.nextInt(n);
    Node<T> busy = null;
    for (int i = 0; i < n; i++) {
      int j = start + i;
      Node<T> node = nodes[j >= n ? j - n : j];
      Availability a = node.availability();
      if (a == Availability.OPEN) {
        return node;
      }
      if (busy == null && a == Availability.BUSY) {
        busy = node;
      }
    }
    if (panicPick) {
      return busy != null ? busy : candidate != null ? candidate : nodes[start];
    }
    throw new NoAvailableEndpointException(name, n);
  }
}
