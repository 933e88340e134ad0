package dev.ballast.core;

import dev.ballast.core.Fixtures.ManualTicker;
import java.util.List;
import java.util.PriorityQueue;
import java.util.SplittableRandom;

/**
 * Closed-loop callers in virtual time: each caller calls back to back, picking a node, waiting
 * for its latency on the balancer's {@link ManualTicker}, completing it and picking again.
 * Events run in time order, so any number of callers is simulated deterministically.
 */
public final class VirtualCallers {

  /** A node's latency for one call, in nanoseconds. */
  public interface Latency {
    public long nanos(int node, long now, long call, SplittableRandom noise);
  }

  /** Whether a node's call started at {@code start} fails (at the end of its latency). */
  public interface Failing {
    public boolean fails(int node, long start);
  }

  private final Balancer<Integer> balancer;
  private final ManualTicker ticker;
  private final Latency latency;
  private final Failing failing;
  private final SplittableRandom noise;
  // events: {end time, node, start time}
  private final PriorityQueue<long[]> inFlight =
      new PriorityQueue<>((x, y) -> Long.compare(x[0], y[0]));
  private final List<Node<Integer>> nodes;
  private long calls;
  private long firstEnd;

  public VirtualCallers(Balancer<Integer> balancer, ManualTicker ticker, Latency latency, long seed) {
    this(balancer, ticker, latency, (node, start) -> false, seed);
  }

  public VirtualCallers(Balancer<Integer> balancer, ManualTicker ticker, Latency latency,
      Failing failing, long seed) {
    this.balancer = balancer;
    this.ticker = ticker;
    this.latency = latency;
    this.failing = failing;
    this.noise = new SplittableRandom(seed);
    this.nodes = balancer.nodes();
  }

  /** Starts {@code callers} callers, one call each, at the current time. */
  public VirtualCallers start(int callers) {
    for (int i = 0; i < callers; i++) {
      call();
    }
    return this;
  }

  /** Runs until the first call made has ended, with the picks its end led to; returns when. */
  public long runToFirstEnd() {
    runUntil(Long.MAX_VALUE, firstEnd + 1);
    return firstEnd;
  }

  /**
   * Runs until {@code until} (ticker time), counting the picks made at or after {@code from}
   * per node.
   */
  public int[] runUntil(long from, long until) {
    int[] counts = new int[nodes.size()];
    while (!inFlight.isEmpty() && inFlight.peek()[0] < until) {
      long[] done = inFlight.poll();
      ticker.advanceNanos(done[0] - ticker.nanoTime());
      int node = (int) done[1];
      nodes.get(node).completeSince(done[2], !failing.fails(node, done[2]));
      int picked = call();
      if (ticker.nanoTime() >= from) {
        counts[picked]++;
      }
    }
    return counts;
  }

  /** Ends every call in flight, in time order, without starting new ones (the load stops). */
  public void drain() {
    while (!inFlight.isEmpty()) {
      long[] done = inFlight.poll();
      ticker.advanceNanos(done[0] - ticker.nanoTime());
      int node = (int) done[1];
      nodes.get(node).completeSince(done[2], !failing.fails(node, done[2]));
    }
  }

  private int call() {
    long now = ticker.nanoTime();
    Node<Integer> n = balancer.pick();
    int i = n.value();
    long l = latency.nanos(i, now, calls, noise);
    if (calls++ == 0) {
      firstEnd = now + l;
    }
    inFlight.add(new long[] {now + l, i, now});
    return i;
  }
}
