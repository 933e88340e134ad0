package dev.ballast.core.hash;

import dev.ballast.core.Availability;
import dev.ballast.core.BalancerConfig;
import dev.ballast.core.NoAvailableEndpointException;
import dev.ballast.core.Node;
import dev.ballast.core.engine.Snapshot;
import java.util.concurrent.atomic.LongAdder;

/**
 * A ring or table of positions, each owned by a node, that a hash points into; the walk that
 * skips unavailable and overloaded nodes is shared by every key-hashing algorithm.
 *
 * <p>A pick starts at the hash's position and moves to the next position while the owner is
 * closed or over its bound, trying at most {@code maxEffort} distinct owners (a run of
 * positions owned by the node just tried costs one step each, and the walk never passes the whole
 * ring). Then it scans every node once from a place the hash decides, so a key that cannot have
 * its node still lands on one node, the same for every client. With half the nodes down, five
 * tries miss with probability 1/32 and the scan then costs O(N). A busy node (connecting, or its
 * pool momentarily full) keeps its keys, as gRPC's {@code ring_hash} makes a call wait for a
 * connecting entry and passes over only failed ones (gRFC A61): moving keys while a connection
 * is being made would defeat the caches behind them. A pick without a key passes over busy nodes
 * too.
 *
 * <p>Bounded loads (Mirrokni, Thorup and Zadimoghaddam, "Consistent Hashing with Bounded Loads",
 * SODA 2018): with {@code m} requests in flight counting the new one, node i may hold at most
 * {@code ceil(c * m * w_i / W)}, its weight's share of c times the mean; a key whose node is full
 * goes to the next one on the ring, as in the paper (weighted as Envoy's {@code
 * hash_balance_factor}). Since the capacities add up to at least {@code c * m >= m}, some node
 * always has room.
 */
abstract class HashSnapshot<T> extends Snapshot<T> {

  private final int maxEffort;
  private final boolean panicPick;
  private final LongAdder inFlight;
  private final double loadBound;
  private final int[] weights;
  private final double totalWeight;

  HashSnapshot(String name, Node<T>[] nodes, int[] weights, BalancerConfig config,
      double loadBound, LongAdder inFlight) {
    super(name, nodes, config);
    this.maxEffort = config.maxEffort();
    this.panicPick = config.panicPick();
    this.inFlight = loadBound > 0 ? inFlight : null;
    this.loadBound = loadBound;
    this.weights = weights;
    long total = 0;
    for (int w : weights) {
      total += w;
    }
    this.totalWeight = total;
  }

  /** Returns how many positions the ring or table has. */
  abstract int positions();

  /** Returns the position a hash points to. */
  abstract int position(long hash);

  /** Returns the index of the node owning a position. */
  abstract int owner(int position);

  @Override
  public final Node<T> pick() {
    return pick(random.nextLong(), Availability.BUSY);
  }

  @Override
  public final Node<T> next() {
    return nodes[owner(position(random.nextLong()))];
  }

  /**
   * Walks from the hash's position to the first node that is not {@code skipped} or worse and
   * is under its bound; a key's pick skips only closed nodes, a keyless pick busy ones too.
   */
  final Node<T> pick(long hash, Availability skipped) {
    long inFlightWithThis = inFlight == null ? 0 : inFlight.sum() + 1;
    int size = positions();
    int p = position(hash);
    int last = -1;
    for (int step = 0, tried = 0; step < size && tried < maxEffort; step++) {
      int o = owner(p);
      if (o != last) {
        last = o;
        tried++;
        Node<T> node = nodes[o];
        if (node.availability().ordinal() < skipped.ordinal() && fits(o, inFlightWithThis)) {
          return node;
        }
      }
      if (++p == size) {
        p = 0;
      }
    }
    return scan(hash, skipped, inFlightWithThis);
  }

  private boolean fits(int o, long inFlightWithThis) {
    return inFlight == null || nodes[o].pending() + 1
        <= Math.ceil(loadBound * inFlightWithThis * weights[o] / totalWeight);
  }

  /**
   * Every node once from where the hash says: the first one the walk would take, else the
   * first open one (all open ones full is a race of concurrent picks), else panic.
   */
  private Node<T> scan(long hash, Availability skipped, long inFlightWithThis) {
    int n = nodes.length;
    int start = (int) (((hash >>> 32) * n) >>> 32);
    Node<T> open = null;
    Node<T> busy = null;
    for (int i = 0; i < n; i++) {
      int j = start + i < n ? start + i : start + i - n;
      Node<T> node = nodes[j];
      Availability a = node.availability();
      if (a.ordinal() < skipped.ordinal() && fits(j, inFlightWithThis)) {
        return node;
      }
      if (a == Availability.OPEN) {
        if (open == null) {
          open = node;
        }
      } else if (busy == null && a == Availability.BUSY) {
        busy = node;
      }
    }
    if (open != null) {
      return open;
    }
    if (panicPick) {
      return busy != null ? busy : nodes[start];
    }
    throw new NoAvailableEndpointException(name, n);
  }
}
