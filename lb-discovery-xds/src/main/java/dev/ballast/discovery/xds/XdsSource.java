package dev.ballast.discovery.xds;

import com.google.protobuf.Message;
import dev.ballast.core.source.EndpointSource;
import dev.ballast.discovery.xds.internal.EdsEntries;
import io.grpc.ChannelCredentials;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.TlsChannelCredentials;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.StreamObserver;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * A cluster's endpoints from an xDS control plane: its EDS resource ({@code
 * ClusterLoadAssignment}) followed over an ADS stream, State of the World by default or
 * incremental (Delta) xDS when the bootstrap's server lists the {@value
 * XdsBootstrap#DELTA_FEATURE} feature or {@link Builder#delta} asks for it. Each endpoint becomes
 * an entry keyed by its address, with its load-balancing weight as the endpoint weight and
 * labels {@code zone}, {@code region} and {@code subzone} (its locality), {@code priority} (its
 * locality's) and {@code health} (UNKNOWN and HEALTHY: healthy; DEGRADED: degraded; UNHEALTHY,
 * DRAINING, TIMEOUT: unhealthy, as Envoy counts them). A stream's first accepted resource is
 * pushed as a whole set; each later one as the change from the one before (entries added,
 * changed, removed), so that a reweight of 50 endpoints among 8000 hands on 50 entries.
 *
 * <p>The protocol, as xDS clients speak it: the stream's first request names the node and
 * subscribes to the resource; every response is answered, an ACK, or a NACK carrying an {@code
 * error_detail} (INVALID_ARGUMENT) naming why, for a response whose resource is malformed (a bad
 * address, port, weight or priority, weights summing past 2<sup>31</sup>-1, a repeated address,
 * a resource of another type). State of the World ACKs carry the response's version, Delta ACKs
 * its nonce; a Delta stream opened again sends the accepted resource's version in {@code
 * initial_resource_versions}. A NACKed response changes nothing: calls go on over the last
 * accepted set. NACKs in a row are spaced (the first at once, then 100 ms doubling to 1 s), so
 * that a control plane answering each NACK with the same bad resource does not loop at full
 * speed; a good response is taken and ACKed at once. State of the World responses without this
 * cluster's resource are ACKed and change nothing (EDS resources are not removed by omission); a
 * Delta removal of the resource is ACKed, reported as a failure of the source, and keeps the
 * last set (as an outage does), until the resource is sent again. When the stream fails, the
 * source reports it (the last set stays in force) and opens a new one after a {@linkplain
 * Builder#backoff backoff}.
 *
 * <p>Not supported: CDS, LDS and RDS (the target names the EDS resource itself), LEDS (a
 * cluster's endpoints as separate resources: a Delta change of one endpoint resends the
 * cluster's resource), locality weights (an endpoint's share is its own weight), federation
 * ({@code xdstp://} names), and sharing one stream between sources (each source has its own).
 */
public final class XdsSource implements EndpointSource {

  private static final System.Logger LOG = System.getLogger(XdsSource.class.getName());
  private static final int MAX_RESPONSE_BYTES = 64 << 20;
  private static final long FIRST_NACK_WAIT_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
  private static final long MAX_NACK_WAIT_NANOS = TimeUnit.SECONDS.toNanos(1);

  private final XdsBootstrap bootstrap;
  private final String cluster;
  private final Backoff backoff;
  private final ScheduledExecutorService scheduler;
  private final ManagedChannel channel;
  private final Dialect dialect; // guarded by lock
  private final EdsEntries eds = new EdsEntries(); // guarded by lock
  private final Object lock = new Object();

  // guarded by lock
  private Listener listener;
  private StreamObserver<Message> requests;
  private long generation; // bumped by every new stream and by close: stale callbacks stop
  private boolean pushedOnStream; // a set was pushed on this stream: later pushes are changes
  private int failures; // consecutive failed streams, for the backoff
  private String rejection; // why the last response was NACKed; null after an ACK
  private int nacksInARow; // since the last ACK: spaces the NACKs of a resending control plane
  private Message heldNack; // a NACK waiting for its turn, or null
  private boolean closed;

  private XdsSource(Builder b) {
    this.bootstrap = b.bootstrap;
    this.cluster = b.cluster;
    this.backoff = b.backoff;
    this.scheduler = b.scheduler != null ? b.scheduler : Scheduler.INSTANCE;
    boolean delta = b.delta != null ? b.delta : bootstrap.delta();
    this.dialect = delta ? new Delta(bootstrap, cluster) : new Sotw(bootstrap, cluster);
    ChannelCredentials creds = bootstrap.tls() ? TlsChannelCredentials.create()
        : InsecureChannelCredentials.create();
    // a ping every 5 minutes finds a connection the control plane's host dropped silently, and
    // stays within what servers allow by default (gRPC's xDS client does the same); a whole
    // resource may outgrow gRPC's 4 MiB default (about 150,000 endpoints)
    this.channel = Grpc.newChannelBuilder(bootstrap.serverUri(), creds)
        .keepAliveTime(5, TimeUnit.MINUTES).maxInboundMessageSize(MAX_RESPONSE_BYTES).build();
  }

  /**
   * Returns a builder of a source following the EDS resource {@code cluster} (the {@code
   * ClusterLoadAssignment}'s {@code cluster_name}) on the bootstrap's control plane.
   *
   * @throws IllegalArgumentException if the cluster name is empty
   */
  public static Builder builder(XdsBootstrap bootstrap, String cluster) {
    return new Builder(bootstrap, cluster);
  }

  @Override
  public void start(Listener l) {
    synchronized (lock) {
      if (listener != null) {
        throw new IllegalStateException("already started: " + name());
      }
      listener = Objects.requireNonNull(l, "listener");
      open(generation);
    }
  }

  @Override
  public String name() {
    return "xds:" + cluster;
  }

  /**
   * Returns the version of the last accepted (ACKed) response ({@code version_info}, or a Delta
   * response's {@code system_version_info}), empty before the first.
   */
  public String acceptedVersion() {
    synchronized (lock) {
      return dialect.acceptedVersion();
    }
  }

  /** Returns whether this source speaks incremental (Delta) xDS, else State of the World. */
  public boolean delta() {
    return dialect instanceof Delta;
  }

  /** Returns why the last response was rejected (NACKed), or null if it was accepted. */
  public String lastRejection() {
    synchronized (lock) {
      return rejection;
    }
  }

  @Override
  public void close() {
    synchronized (lock) {
      if (closed) {
        return;
      }
      closed = true;
      generation++;
      if (requests instanceof ClientCallStreamObserver<Message> call) {
        call.cancel("source closed", null);
      }
      requests = null;
    }
    channel.shutdownNow();
  }

  // opens a stream and asks for the cluster; under lock
  private void open(long gen) {
    if (closed || gen != generation) {
      return;
    }
    long current = ++generation;
    heldNack = null; // for the stream that ended
    pushedOnStream = false;
    channel.resetConnectBackoff(); // our backoff paces the retries, not the channel's
    requests = dialect.open(channel, new Responses(current));
    requests.onNext(dialect.subscribe());
  }

  private void respond(long gen, Message r) {
    synchronized (lock) {
      if (closed || gen != generation) {
        return;
      }
      failures = 0;
      Dialect.Read read;
      EdsEntries.Change change = null;
      try {
        read = dialect.read(r);
        if (read == null) {
          return; // never asked for: nothing to answer
        }
        if (read.resource() != null) {
          change = eds.readChange(read.resource());
        }
      } catch (IllegalArgumentException bad) {
        if (!bad.getMessage().equals(rejection)) {
          LOG.log(System.Logger.Level.WARNING, "{0}: rejected a response: {1}", name(),
              bad.getMessage());
        }
        rejection = bad.getMessage();
        nack(gen, dialect.reject(r, bad.getMessage()));
        return;
      }
      rejection = null;
      nacksInARow = 0;
      heldNack = null; // this ACK answers the newer response
      requests.onNext(dialect.accept(r));
      if (change != null) {
        push(change);
      } else if (read.removed()) {
        pushedOnStream = false; // the resource sent again comes whole: the feed hears it is back
        LOG.log(System.Logger.Level.WARNING, "{0}: the control plane removed the EDS resource;"
            + " keeping the last set until it is sent again", name());
        listener.onFailure(new IllegalStateException("EDS resource " + cluster
            + " removed by the control plane"));
      }
    }
  }

  // the stream's first set whole, later ones as changes; under lock
  private void push(EdsEntries.Change change) {
    if (!pushedOnStream) {
      pushedOnStream = true;
      listener.onEntries(change.entries());
    } else if (!change.isEmpty()) {
      listener.onChanges(change.upserts(), change.removed());
    }
  }

  // Sends a NACK; under lock. A control plane answers a NACK with its current snapshot, so one
  // whose snapshot is bad sends it straight back (java-control-plane's and go-control-plane's
  // caches do): answered at once, that loop ran thousands of round trips a second. The first
  // NACK after an ACK goes at once; each next one in a row waits 100 ms, doubling to 1 s. A good
  // response, when one comes, is taken and ACKed at once; a control plane that only answers
  // requests sends its fix when the waiting NACK reaches it, within a second.
  private void nack(long gen, Message nack) {
    nacksInARow++;
    long wait = nacksInARow == 1 ? 0
        : Math.min(MAX_NACK_WAIT_NANOS, FIRST_NACK_WAIT_NANOS << Math.min(nacksInARow - 2, 20));
    if (wait == 0) {
      requests.onNext(nack);
      return;
    }
    boolean waiting = heldNack != null; // a NACK already waits: this one takes its turn
    heldNack = nack;
    if (!waiting) {
      scheduler.schedule(() -> {
        synchronized (lock) {
          if (!closed && gen == generation && heldNack != null) {
            requests.onNext(heldNack);
            heldNack = null;
          }
        }
      }, wait, TimeUnit.NANOSECONDS);
    }
  }

  private void failed(long gen, Throwable cause) {
    long delayNanos;
    long next;
    synchronized (lock) {
      if (closed || gen != generation) {
        return;
      }
      next = gen;
      requests = null;
      failures++;
      delayNanos = Math.max(0, backoff.delay(failures).toNanos());
      LOG.log(System.Logger.Level.DEBUG, "{0}: stream to {1} failed ({2}); again in {3} ms",
          name(), bootstrap.serverUri(), cause, delayNanos / 1_000_000);
      listener.onFailure(cause);
    }
    scheduler.schedule(() -> {
      synchronized (lock) {
        open(next);
      }
    }, delayNanos, TimeUnit.NANOSECONDS);
  }

  private final class Responses implements StreamObserver<Message> {
    private final long gen;

    Responses(long gen) {
      this.gen = gen;
    }

    @Override
    public void onNext(Message r) {
      respond(gen, r);
    }

    @Override
    public void onError(Throwable t) {
      failed(gen, t);
    }

    @Override
    public void onCompleted() {
      failed(gen, new IllegalStateException("the control plane ended the stream"));
    }
  }

  /** How long to wait before the n-th attempt to open a stream after failures (n &ge; 1). */
  @FunctionalInterface
  public interface Backoff {

    /** Returns the delay before attempt {@code n} (1 after the first failure). */
    Duration delay(int n);

    /**
     * Returns an exponential backoff: {@code initial} doubled per failure up to {@code max}, each
     * delay drawn uniformly within &plusmn;20% (so that many clients do not retry in step).
     *
     * @throws IllegalArgumentException if initial is not positive or max is below it
     */
    static Backoff exponential(Duration initial, Duration max) {
      if (initial.isNegative() || initial.isZero() || max.compareTo(initial) < 0) {
        throw new IllegalArgumentException("backoff: " + initial + " to " + max
            + " (expected: 0 < initial <= max)");
      }
      long first = initial.toNanos();
      long cap = max.toNanos();
      return n -> {
        long d = first;
        for (int i = 1; i < n && d < cap; i++) {
          d = Math.min(cap, d * 2);
        }
        return Duration.ofNanos((long) (d * (0.8 + 0.4 * ThreadLocalRandom.current().nextDouble())));
      };
    }
  }

  /** Builds an {@link XdsSource}. */
  public static final class Builder {
    private final XdsBootstrap bootstrap;
    private final String cluster;
    private Backoff backoff = Backoff.exponential(Duration.ofSeconds(1), Duration.ofSeconds(30));
    private ScheduledExecutorService scheduler;
    private Boolean delta;

    private Builder(XdsBootstrap bootstrap, String cluster) {
      this.bootstrap = Objects.requireNonNull(bootstrap, "bootstrap");
      Objects.requireNonNull(cluster, "cluster");
      if (cluster.isEmpty()) {
        throw new IllegalArgumentException("cluster: empty (expected: an EDS resource name, e.g."
            + " orders)");
      }
      this.cluster = cluster;
    }

    /**
     * Sets the wait before opening a stream again after it failed; default {@link
     * Backoff#exponential} from 1 s to 30 s.
     */
    public Builder backoff(Backoff backoff) {
      this.backoff = Objects.requireNonNull(backoff, "backoff");
      return this;
    }

    /**
     * Sets the scheduler the retries wait on; default one daemon thread shared by the sources.
     */
    public Builder scheduler(ScheduledExecutorService scheduler) {
      this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
      return this;
    }

    /**
     * Sets the protocol: incremental (Delta) xDS if true, State of the World if false; default
     * the bootstrap's choice ({@link XdsBootstrap#delta}).
     */
    public Builder delta(boolean delta) {
      this.delta = delta;
      return this;
    }

    /** Returns the source, not yet started; it opens its channel to the control plane now. */
    public XdsSource build() {
      return new XdsSource(this);
    }
  }

  /** The daemon thread on which sources wait before opening a stream again. */
  private static final class Scheduler {
    static final ScheduledExecutorService INSTANCE = create();

    private static ScheduledExecutorService create() {
      ScheduledThreadPoolExecutor s = new ScheduledThreadPoolExecutor(1, r -> {
        Thread t = new Thread(r, "ballast-xds-retry");
        t.setDaemon(true);
        return t;
      });
      s.setRemoveOnCancelPolicy(true);
      return s;
    }
  }
}
