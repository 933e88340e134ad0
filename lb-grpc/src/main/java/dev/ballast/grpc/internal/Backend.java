package dev.ballast.grpc.internal;

import dev.ballast.core.Availability;
import dev.ballast.core.Node;
import dev.ballast.core.Ticker;
import io.grpc.ClientStreamTracer;
import io.grpc.ConnectivityState;
import io.grpc.EquivalentAddressGroup;
import io.grpc.LoadBalancer.PickResult;
import io.grpc.LoadBalancer.Subchannel;
import io.grpc.Metadata;
import io.grpc.Status;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.atomic.LongAdder;

/**
 * One subchannel as lb-core's node value, and the stream-tracer factory that ends the node's
 * pending requests.
 *
 * <p>Pending accounting: a pick counts one pending request on the node (lb-core's contract) and
 * one {@code unstarted} pick here. When gRPC creates the stream it asks this factory for a tracer:
 * the pick becomes a started stream ({@code unstarted - 1}) whose close calls {@link
 * Node#complete} with its latency and status. A pick whose stream is never created (gRPC found
 * the subchannel's transport gone and re-picks) stays {@code unstarted}; since that only happens
 * when the subchannel is leaving READY, every state change of the subchannel {@linkplain
 * #reclaimUnstarted() cancels} the unstarted picks. A stream created after its pick was
 * reclaimed (a race of a few instructions) gets no tracer feedback, so pending never goes wrong
 * by more than the picks in that race.
 */
final class Backend extends ClientStreamTracer.Factory {

  private static final VarHandle UNSTARTED;

  static {
    try {
      UNSTARTED = MethodHandles.lookup().findVarHandle(Backend.class, "unstarted", int.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  private static final ClientStreamTracer NOOP = new ClientStreamTracer() {};

  final String address;
  final Subchannel subchannel;
  /** The time source for latencies, or null when the algorithm ignores latency. */
  private volatile Ticker ticker;
  /** The tracer shared by all streams of the node when no latency is measured. */
  private volatile ClientStreamTracer untimed;
  /** The pick handed to gRPC when completions are tracked: this subchannel, this factory. */
  final PickResult tracedPick;
  /** The pick handed to gRPC when they are not. */
  final PickResult plainPick;

  /** Picks counted for metrics, or null when none are kept; set before the first pick. */
  LongAdder picks;

  // Written in the synchronization context, read by pickers.
  private volatile Node<Backend> node;
  private volatile boolean ready;
  private volatile int unstarted;

  // Synchronization context only.
  EquivalentAddressGroup group;
  ConnectivityState state = ConnectivityState.CONNECTING;

  Backend(String address, Subchannel subchannel, EquivalentAddressGroup group) {
    this.address = address;
    this.subchannel = subchannel;
    this.group = group;
    this.tracedPick = PickResult.withSubchannel(subchannel, this);
    this.plainPick = PickResult.withSubchannel(subchannel);
  }

  Node<Backend> node() {
    return node;
  }

  /**
   * Binds the node made for this backend and sets its availability from the state.
   *
   * @param streamTicker the time source for stream latencies, or null if the algorithm ignores
   *     them (then every stream shares one tracer and nothing is allocated per call)
   */
  void bind(Node<Backend> n, Ticker streamTicker) {
    ticker = streamTicker;
    if (node != n) {
      untimed = new UntimedTracer(n);
      node = n;
      UNSTARTED.setVolatile(this, 0); // picks of an earlier node release on that node only
    }
    n.setAvailability(availability(state));
  }

  boolean isReady() {
    return ready;
  }

  /** Records a new state (synchronization context); READY opens the node for picks. */
  void setState(ConnectivityState newState) {
    state = newState;
    ready = newState == ConnectivityState.READY;
    Node<Backend> n = node;
    if (n != null) {
      n.setAvailability(availability(newState));
    }
  }

  static Availability availability(ConnectivityState s) {
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

  /** Counts a pick handed to gRPC, when metrics are kept. */
  void countPick() {
    LongAdder p = picks;
    if (p != null) {
      p.increment();
    }
  }

  /** Counts a pick whose stream has not been created yet; called by pickers after pick(). */
  void pickedUnstarted() {
    UNSTARTED.getAndAdd(this, 1);
  }

  /** Returns the picks not yet turned into streams. */
  int unstarted() {
    return unstarted;
  }

  /** Cancels every pick not turned into a stream (their streams will never be created). */
  void reclaimUnstarted() {
    Node<Backend> n = node;
    int count = (int) UNSTARTED.getAndSet(this, 0);
    for (int i = 0; i < count && n != null; i++) {
      n.cancel();
    }
  }

  @Override
  public ClientStreamTracer newClientStreamTracer(
      ClientStreamTracer.StreamInfo info, Metadata headers) {
    Node<Backend> n = node;
    ClientStreamTracer shared = untimed;
    Ticker t = ticker;
    int u;
    do {
      u = unstarted;
      if (u <= 0) {
        return NOOP; // its pick was reclaimed: pending was already released
      }
    } while (!UNSTARTED.weakCompareAndSet(this, u, u - 1));
    return t == null ? shared : new CompletionTracer(n, t);
  }

  @Override
  public String toString() {
    return "Backend{" + address + ", " + state + "}";
  }

  /**
   * Ends started streams on a node without timing them (least_loaded, swrr): one instance serves
   * every stream, since gRPC calls {@code streamClosed} exactly once per stream.
   */
  private static final class UntimedTracer extends ClientStreamTracer {
    private final Node<Backend> node;

    UntimedTracer(Node<Backend> node) {
      this.node = node;
    }

    @Override
    public void streamClosed(Status status) {
      node.complete(0, status.isOk());
    }
  }

  /** Ends one started stream on its node: latency from creation to close, success if OK. */
  private static final class CompletionTracer extends ClientStreamTracer {
    private static final VarHandle CLOSED;

    static {
      try {
        CLOSED = MethodHandles.lookup()
            .findVarHandle(CompletionTracer.class, "closed", int.class);
      } catch (ReflectiveOperationException e) {
        throw new ExceptionInInitializerError(e);
      }
    }

    private final Node<Backend> node;
    private final Ticker ticker;
    private final long start;
    private volatile int closed;

    CompletionTracer(Node<Backend> node, Ticker ticker) {
      this.node = node;
      this.ticker = ticker;
      this.start = ticker.nanoTime();
    }

    @Override
    public void streamClosed(Status status) {
      if (CLOSED.compareAndSet(this, 0, 1)) {
        node.complete(ticker.nanoTime() - start, status.isOk());
      }
    }
  }
}
