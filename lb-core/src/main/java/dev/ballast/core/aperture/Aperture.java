package dev.ballast.core.aperture;

import dev.ballast.core.Availability;
import dev.ballast.core.BalancerConfig;
import dev.ballast.core.Node;
import dev.ballast.core.WindowedBalancer;
import dev.ballast.core.engine.AbstractBalancer;
import dev.ballast.core.engine.LoadMetric;
import dev.ballast.core.engine.Snapshot;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;

/**
 * Deterministic aperture (Finagle's {@code DeterministicAperture}; "Deterministic Aperture: A
 * Distributed, Load Balancing Algorithm", Twitter Engineering, 2019): each client talks to a
 * window of the servers, so that connections grow with the aperture, not with the fleet, while
 * every server still gets the same share of all clients' load.
 *
 * <p>Servers, sorted by address so that every client orders them alike, sit on a ring of
 * circumference 1, each on a slice of width {@code 1/N}. Client {@code i} of {@code C} sits at
 * offset {@code i/C} with a slice of {@code 1/C}. Its aperture is the arc from its offset that
 * spans {@code units × C / N} client slices, {@code units} being the logical aperture, which
 * starts at {@value #MIN_APERTURE} servers (Finagle's minimum for deterministic aperture) or all
 * of them if fewer. Finagle rounds that up to whole client slices, so that every point of the
 * ring lies under the same number of arcs and every server gets the same load; this does too
 * while the arc spans fewer than 10 slices, but not beyond, where each point lies under k or
 * k + 1 arcs, k &ge; 10 (loads within about a tenth), and where rounding would cost every client
 * a connection whenever a server joins or leaves (1,000 clients over 1,000 servers, one leaving:
 * about one connection opened per client instead of two). A pick draws two points uniformly on
 * the arc, so that servers at its edges are drawn in proportion to their overlap, takes the
 * servers under them, and keeps the one with fewer
 * pending requests per unit of weight (P2C least loaded). A client only ever picks, and so only
 * connects to, the servers under its arc, unless none of them is open (then any open one, as
 * every balancer's degraded pick).
 *
 * <p>The aperture widens with load (Finagle's load band): every 32 picks the pending requests
 * of the servers under the arc are summed and averaged per logical unit, smoothed over the
 * checks (weight 1/8); at {@value #HIGH_LOAD} or more the aperture widens by one server, at
 * {@value #LOW_LOAD} or less it narrows by one, never below the minimum. The width survives
 * updates; a client's coordinate comes from the config ({@link
 * BalancerConfig#apertureIndex()}, {@link BalancerConfig#apertureCount()}) and changes with
 * {@link #setCoordinate(int, int)} as a source of peers learns the client's index and count.
 * Both move the window ({@link #window()}), and {@link #onWindowMoved} hears of it, so that a
 * gRPC policy connects only the servers under the arc.
 *
 * <p>Not designed for extension: it is not final only so that its deprecated alias {@code
 * dev.ballast.core.Aperture} can extend it, until the alias goes in the next version.
 *
 * @param <T> the thing being balanced
 */
public class Aperture<T> extends AbstractBalancer<T> implements WindowedBalancer<T> {

  /** The algorithm's name: {@code aperture}. */
  public static final String NAME = "aperture";

  /** The smallest aperture, in servers (or all servers when there are fewer). */
  public static final int MIN_APERTURE = 12;

  /** Average pending requests per server at or below which the aperture narrows. */
  public static final double LOW_LOAD = 0.5;

  /** Average pending requests per server at or above which the aperture widens. */
  public static final double HIGH_LOAD = 2.0;

  // Arcs spanning this many client slices or more are not rounded up to whole slices.
  private static final int WHOLE_SLICES = 10;

  // The logical aperture, shared by every snapshot so that it survives updates.
  private final Width width = new Width();
  private volatile int index;
  private volatile int count;

  /** Creates a balancer with {@link BalancerConfig#defaults()}: a lone client, all servers. */
  public Aperture() {
    this(BalancerConfig.defaults());
  }

  /** Creates a balancer; uses the config's coordinate, random source, effort and panic settings. */
  public Aperture(BalancerConfig config) {
    super(NAME, config, LoadMetric.NONE);
    this.index = config.apertureIndex();
    this.count = config.apertureCount();
  }

  /**
   * Moves this client to coordinate {@code index} of {@code count} clients (when a source of
   * peers reports a change) and rebuilds the ring at once.
   *
   * @throws IllegalArgumentException unless {@code 0 <= index < count}
   */
  public void setCoordinate(int index, int count) {
    BalancerConfig.builder().apertureCoordinate(index, count); // checks them
    synchronized (this) {
      this.index = index;
      this.count = count;
      rebuild();
    }
    Runnable moved = width.moved;
    if (moved != null) {
      moved.run();
    }
  }

  /** Returns the servers under this client's arc now, in ring order. */
  public List<Node<T>> aperture() {
    Snapshot<T> s = current();
    return s instanceof ApertureSnapshot ? ((ApertureSnapshot<T>) s).window() : List.of();
  }

  /** Returns {@link #aperture()}: the servers under the arc, in ring order. */
  @Override
  public List<Node<T>> window() {
    return aperture();
  }

  /**
   * {@inheritDoc} Here: the load band widening or narrowing the aperture by one server (run by
   * the pick that checks the load, every 32 picks at most), and {@link #setCoordinate}.
   */
  @Override
  public void onWindowMoved(Runnable listener) {
    width.moved = listener;
  }

  @Override
  protected Snapshot<T> snapshot(Node<T>[] nodes, int[] weights, int[] levels) {
    return new ApertureSnapshot<>(nodes, weights, config, index, count, width);
  }

  /** The logical aperture and its smoothed load: racy by design, a self-correcting controller. */
  private static final class Width {
    volatile int units;
    double load;
    volatile Runnable moved;
  }

  private static final class ApertureSnapshot<T> extends Snapshot<T> {
    private final Node<T>[] ring;
    private final int[] weights;
    private final double offset;
    private final int clients;
    private final int min;
    private final Width width;
    private int picks;

    ApertureSnapshot(Node<T>[] nodes, int[] weights, BalancerConfig config, int index,
        int clients, Width width) {
      super(NAME, nodes, config);
      Integer[] order = new Integer[nodes.length];
      for (int i = 0; i < order.length; i++) {
        order[i] = i;
      }
      Arrays.sort(order, Comparator.comparing(i -> nodes[i].address()));
      @SuppressWarnings("unchecked")
      Node<T>[] sorted = new Node[nodes.length];
      this.weights = new int[nodes.length];
      for (int k = 0; k < order.length; k++) {
        sorted[k] = nodes[order[k]];
        this.weights[k] = weights[order[k]];
      }
      this.ring = sorted;
      this.offset = (double) index / clients;
      this.clients = clients;
      this.min = Math.min(MIN_APERTURE, nodes.length);
      this.width = width;
      width.units = Math.max(min, Math.min(width.units, nodes.length));
    }

    /** The arc's width, at most 1 (see the class comment). */
    private double arc() {
      double slices = (double) width.units * clients / ring.length;
      return Math.min(1.0, (slices >= WHOLE_SLICES ? slices : Math.ceil(slices)) / clients);
    }

    @Override
    public Node<T> next() {
      int n = ring.length;
      if (n == 1) {
        return ring[0];
      }
      if ((++picks & 31) == 0) {
        adjust();
      }
      double arc = arc();
      long r = random.nextLong();
      int a = position(r >>> 32, arc);
      int b = position(r & 0xFFFFFFFFL, arc);
      for (int i = 0; i < 3 && b == a; i++) {
        b = position(random.nextLong() >>> 32, arc);
      }
      if (b == a) {
        b = a + 1 == n ? 0 : a + 1; // an arc over one server: its neighbour
      }
      // P2C least loaded: pending_b / w_b < pending_a / w_a, without dividing.
      Node<T> pick = ring[a];
      Node<T> other = ring[b];
      if ((long) other.pending() * weights[a] < (long) pick.pending() * weights[b]) {
        pick = ring[b];
        other = ring[a];
      }
      if (pick.availability() != Availability.OPEN && other.availability() == Availability.OPEN) {
        return other;
      }
      return pick;
    }

    /** The ring position under the point {@code bits / 2^32} of the way along the arc. */
    private int position(long bits, double arc) {
      double point = offset + bits * 0x1p-32 * arc;
      int p = (int) (point * ring.length);
      return p >= ring.length ? p - ring.length : p;
    }

    /** Load band: widens or narrows the logical aperture by one from the smoothed load. */
    private void adjust() {
      int pending = 0;
      int first = first();
      int span = span(first);
      for (int k = 0; k < span; k++) {
        int p = first + k;
        pending += ring[p >= ring.length ? p - ring.length : p].pending();
      }
      int units = width.units;
      double load = width.load + ((double) pending / units - width.load) / 8;
      width.load = load;
      int next = load >= HIGH_LOAD && units < ring.length ? units + 1
          : load <= LOW_LOAD && units > min ? units - 1 : units;
      if (next != units) {
        width.units = next;
        Runnable moved = width.moved;
        if (moved != null) {
          moved.run();
        }
      }
    }

    /** The first ring position the arc covers (a tolerance keeps exact offsets exact). */
    private int first() {
      return (int) (offset * ring.length + 1e-9);
    }

    /** How many ring positions the arc touches from {@code first}. */
    private int span(int first) {
      double end = (offset + arc()) * ring.length;
      return Math.min(ring.length, (int) Math.ceil(end - 1e-9) - first);
    }

    List<Node<T>> window() {
      int first = first();
      int span = span(first);
      List<Node<T>> out = new ArrayList<>(span);
      for (int k = 0; k < span; k++) {
        int p = first + k;
        out.add(ring[p >= ring.length ? p - ring.length : p]);
      }
      return out;
    }
  }
}
