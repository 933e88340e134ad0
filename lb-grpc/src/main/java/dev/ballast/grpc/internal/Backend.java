package dev.ballast.grpc.internal;

import dev.ballast.core.Availability;
import dev.ballast.core.Health;
import dev.ballast.core.Node;
import dev.ballast.core.Ticker;
import dev.ballast.grpc.spi.PickResults;
import io.grpc.ClientStreamTracer;
import io.grpc.ConnectivityState;
import io.grpc.EquivalentAddressGroup;
import io.grpc.LoadBalancer.PickResult;
import io.grpc.LoadBalancer.Subchannel;
import io.grpc.Metadata;
import io.grpc.Status;
import java.util.concurrent.atomic.LongAdder;

/**
 * One subchannel as lb-core's node value, with the prebuilt pick results that pickers hand out.
 *
 * <p>Pending accounting: pickers choose with {@link dev.ballast.core.Balancer#pickUncounted()},
 * and a request is counted on the node ({@link Node#start()}) only when gRPC creates its stream
 * and asks the pick's tracer factory for a tracer, as gRPC's least_request does; the tracer's
 * {@code streamClosed}, which gRPC calls exactly once per stream, ends it. A pick whose stream is
 * never created (gRPC found the transport gone and picks again) is thus never counted, and the
 * pick itself writes nothing shared but the algorithm's own position.
 *
 * <p>Three results per subchannel: {@link #plainPick} (no tracer: the algorithm needs no
 * feedback), {@link #countedPick} (one tracer shared by all streams of the node: pending counts
 * and outcomes, no clock) and {@link #timedPick} (a 24-byte tracer per stream that reads the
 * clock at creation; lb-core reads it once more at the close, for the latency and the estimate's
 * stamp alike). The load balancer's {@link PickResults} makes them with the backend, and again
 * at a bind if it changed, so that a policy adds its own tracer (ORCA's per-call reports) once,
 * not at every pick.
 *
 * <p>A backend may be without a subchannel ({@link #subchannel} null, state null): a policy that
 * picks from a window of its endpoints ({@link dev.ballast.core.WindowedBalancer}) connects only
 * the window's, and {@link #attach} and {@link #detach} follow the window. A backend without one
 * is closed to picks and never ready.
 */
final class Backend extends ClientStreamTracer.Factory {

  final String address;
  /** The subchannel, or null while the backend is not connected (synchronization context). */
  Subchannel subchannel;
  private final Timed timed = new Timed();
  // The results pickers hand out, made by `results` (written in the synchronization context;
  // a picker racing a bind gets the old or the new one, both whole: PickResult is immutable).
  /** The pick handed to gRPC when the algorithm needs no feedback. */
  volatile PickResult plainPick;
  /** The pick whose streams count on the node and report their outcome, untimed. */
  volatile PickResult countedPick;
  /** The pick whose streams are also timed (peak EWMA's unary calls). */
  volatile PickResult timedPick;
  private PickResults results;

  /**
   * Picks counted for the per-endpoint meter, or null when none are kept (the default); set
   * before the first pick.
   */
  LongAdder picks;

  // Written in the synchronization context, read by pickers and tracer factories.
  private volatile Node<Backend> node;
  private volatile ClientStreamTracer shared;
  private volatile Ticker ticker;
  private volatile boolean ready;

  // Synchronization context only.
  EquivalentAddressGroup group;
  /** The subchannel's recorded state, or null without a subchannel. */
  ConnectivityState state;
  /** The last window (its stamp) that held the backend, for a policy with a window. */
  long inWindow;

  /** Creates a backend without a subchannel; {@link #attach} gives it one. */
  Backend(String address, EquivalentAddressGroup group) {
    this.address = address;
    this.group = group;
  }

  /** Gives the backend a new subchannel, CONNECTING, and makes its pick results. */
  void attach(Subchannel s, PickResults pickResults) {
    subchannel = s;
    state = ConnectivityState.CONNECTING;
    makeResults(pickResults);
    Node<Backend> n = node;
    if (n != null) {
      n.setAvailability(Availability.BUSY);
    }
  }

  /** Drops the subchannel (the caller shuts it down): the node closes to picks. */
  void detach() {
    subchannel = null;
    state = null;
    ready = false;
    Node<Backend> n = node;
    if (n != null) {
      n.setAvailability(Availability.CLOSED);
    }
  }

  private void makeResults(PickResults r) {
    results = r;
    plainPick = r.of(subchannel, null);
    countedPick = r.of(subchannel, this);
    timedPick = r.of(subchannel, timed);
  }

  Node<Backend> node() {
    return node;
  }

  /**
   * Binds the node made for this backend and sets its availability from the state.
   *
   * @param streamTicker the time source for the latencies of {@link #timedPick}'s streams, or
   *     null if the algorithm ignores latency (its streams then report only their outcome, and
   *     streams of untimed picks of a timing algorithm report nothing but their end)
   * @param pickResults makes the results pickers hand out (made again only when it changed)
   */
  void bind(Node<Backend> n, Ticker streamTicker, PickResults pickResults) {
    if (pickResults != results && subchannel != null) {
      makeResults(pickResults);
    }
    ticker = streamTicker;
    if (node != n || shared == null) {
      shared = new Untimed(n, streamTicker == null);
      node = n;
    }
    n.setAvailability(availability(state));
    if (state != null) {
      health(n, state);
    }
  }

  boolean isReady() {
    return ready;
  }

  /** Counts a pick handed to gRPC, when picks are counted per endpoint. */
  void countPick() {
    LongAdder p = picks;
    if (p != null) {
      p.increment();
    }
  }

  /** Records a new state (synchronization context); READY opens the node for picks. */
  void setState(ConnectivityState newState) {
    state = newState;
    ready = newState == ConnectivityState.READY;
    Node<Backend> n = node;
    if (n != null) {
      n.setAvailability(availability(newState));
      health(n, newState);
    }
  }

  /**
   * A subchannel in TRANSIENT_FAILURE (its connection failed, or gRPC's health check said
   * NOT_SERVING, gRFC A17) makes its node unhealthy, so that priorities and zones count it out;
   * READY makes it healthy again. Connecting and idle say nothing new.
   */
  private static void health(Node<Backend> n, ConnectivityState s) {
    if (s == ConnectivityState.READY) {
      n.setHealth(Health.HEALTHY);
    } else if (s == ConnectivityState.TRANSIENT_FAILURE) {
      n.setHealth(Health.UNHEALTHY);
    }
  }

  /** The availability of a subchannel's state; CLOSED without a subchannel (null). */
  static Availability availability(ConnectivityState s) {
    if (s == null) {
      return Availability.CLOSED;
    }
    switch (s) {
      case READY:
        return Availability.OPEN;
      case CONNECTING:
      case IDLE:
        return Availability.BUSY;
      default:
        return Availability.CLOSED;
    }
  }

  @Override
  public String toString() {
    return "Backend{" + address + ", " + state + "}";
  }

  /**
   * Counts each stream of {@link #countedPick} on the node and hands out the node's shared
   * tracer. (Should a rebind to a new node race this, the old node, which its balancer no longer
   * holds, keeps one count.)
   */
  @Override
  public ClientStreamTracer newClientStreamTracer(
      ClientStreamTracer.StreamInfo info, Metadata headers) {
    node.start();
    return shared;
  }

  /** Counts each stream on the node and times it with a tracer of its own. */
  private final class Timed extends ClientStreamTracer.Factory {
    @Override
    public ClientStreamTracer newClientStreamTracer(
        ClientStreamTracer.StreamInfo info, Metadata headers) {
      Node<Backend> n = node;
      n.start();
      return new TimedTracer(n, ticker.nanoTime());
    }
  }

  /**
   * Ends streams on a node without timing them. One instance serves every stream of the node,
   * since gRPC calls {@code streamClosed} exactly once per stream: least_loaded and swrr hear the
   * outcome; a timing algorithm's streaming calls (whose length is no latency) only end.
   */
  private static final class Untimed extends ClientStreamTracer {
    private final Node<Backend> node;
    private final boolean outcome;

    Untimed(Node<Backend> node, boolean outcome) {
      this.node = node;
      this.outcome = outcome;
    }

    @Override
    public void streamClosed(Status status) {
      if (outcome) {
        node.complete(0, status.isOk());
      } else {
        node.cancel();
      }
    }
  }

  /** Ends one timed stream: latency from creation to close, success if OK. */
  private static final class TimedTracer extends ClientStreamTracer {
    private final Node<Backend> node;
    private final long start;

    TimedTracer(Node<Backend> node, long start) {
      this.node = node;
      this.start = start;
    }

    @Override
    public void streamClosed(Status status) {
      node.completeSince(start, status.isOk());
    }
  }
}
