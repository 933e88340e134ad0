package dev.ballast.netty.internal;

import dev.ballast.core.Availability;
import dev.ballast.core.Endpoint;
import dev.ballast.core.Node;
import dev.ballast.core.Ticker;
import dev.ballast.core.log.StateChangeLog;
import dev.ballast.core.source.EndpointFeed;
import dev.ballast.core.source.EndpointSink;
import dev.ballast.core.source.EndpointSource;
import dev.ballast.core.status.BalancerStatus;
import dev.ballast.core.status.EndpointStatus;
import dev.ballast.netty.EndpointStats;
import dev.ballast.netty.outlier.OutlierDetection;
import dev.ballast.netty.pool.PoolConfig;
import dev.ballast.netty.health.internal.ActiveChecks;
import io.netty.channel.EventLoopGroup;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import java.util.random.RandomGenerator;

/**
 * The client's endpoint set: one {@link EndpointClient} (connection pool and outlier-detection
 * state) per endpoint, held as the values of the {@link Router}'s nodes. Applies updates, and
 * turns ejections and reinstatements into node availability.
 */
final class Endpoints<Req, Rep> {

  final Router<EndpointClient<Req, Rep>> router;
  final Ejections detector;
  private final String client;
  private final AtomicBoolean closed;
  private final Object updateLock = new Object();
  private final Protocol<Req, Rep> protocol;
  private final PoolConfig poolConfig;
  private final LoopSpread loops;
  private final Ticker ticker;
  private final RandomGenerator random;
  private final ClientMetrics metrics;
  // how long a removed endpoint's pool may stay open for the requests it still carries
  private final long drainNanos;
  private final ConcurrentHashMap<String, EndpointClient<Req, Rep>> byAddress =
      new ConcurrentHashMap<>();
  private volatile EndpointFeed feed;
  // Completed once the client holds an endpoint, or when a source's startup wait ends, or at
  // close: until then a call that finds no endpoint waits for the first ones (awaitFirst).
  private final CompletableFuture<Void> firstEndpoints = new CompletableFuture<>();
  private volatile boolean awaitsSource;
  // active health checks, or null; written under updateLock
  volatile ActiveChecks<EndpointClient<Req, Rep>> checks;
  // futures waiting for the endpoints to satisfy a condition; tested after every change
  final EndpointWaiters waiters;
  // the client's state changes (ejections, checks, its source), rate-limited
  final StateChangeLog states;

  /** Returns the client's name. */
  String client() {
    return client;
  }

  Endpoints(String client, Router<EndpointClient<Req, Rep>> router, OutlierDetection outliers,
      Protocol<Req, Rep> protocol, PoolConfig poolConfig, EventLoopGroup group, Ticker ticker,
      RandomGenerator random, ClientMetrics metrics, AtomicBoolean closed, long drainNanos) {
    this.client = client;
    this.closed = closed;
    this.router = router;
    this.protocol = protocol;
    this.poolConfig = poolConfig;
    this.loops = new LoopSpread(group);
    this.ticker = ticker;
    this.random = random;
    this.metrics = metrics;
    this.drainNanos = drainNanos;
    this.waiters = new EndpointWaiters(client, this::endpoints);
    this.states = StateChangeLog.of("client " + client, ticker);
    router.stateLog(states);
    this.detector = new Ejections(outliers, ticker, random,
        new Ejections.Listener() {
          @Override
          public void ejected(Ejections.Host host, long nanos, String reason) {
            EndpointClient<Req, Rep> ep = current(host);
            if (ep != null) {
              ep.ejection = reason;
              ep.setEjected(true);
              states.log(StateChangeLog.Kind.EJECTION, System.Logger.Level.WARNING, "endpoint "
                  + ep.address + " ejected by outlier detection for "
                  + TimeUnit.NANOSECONDS.toMillis(nanos) + " ms: " + reason);
              ep.metrics.ejected();
              loops.group().next().schedule(detector::reinstateExpired, nanos,
                  TimeUnit.NANOSECONDS);
            }
          }

          @Override
          public void reinstated(Ejections.Host host) {
            EndpointClient<Req, Rep> ep = current(host);
            if (ep != null) {
              ep.setEjected(false);
              states.log(StateChangeLog.Kind.EJECTION, System.Logger.Level.INFO,
                  "endpoint " + ep.address + " reinstated after its ejection");
            }
          }
        });
  }

  private EndpointClient<Req, Rep> current(Ejections.Host host) {
    EndpointClient<Req, Rep> ep = byAddress.get(host.address);
    return ep != null && ep.host == host ? ep : null;
  }

  /**
   * Replaces the set: new endpoints get a pool, those that stay keep theirs, removed ones stop
   * taking requests and drain. Changes are serialised.
   *
   * @throws IllegalArgumentException if the balancer rejects the set (the old set stays)
   * @throws IllegalStateException if the client is closed
   */
  void update(Collection<Endpoint> endpoints) {
    Objects.requireNonNull(endpoints, "endpoints");
    change(r -> r.update(endpoints, this::newEndpoint));
  }

  // A source's pushes: deltas into a subset selector, whole sets into a balancer; none once the
  // client is closed.
  private final EndpointSink sink = new EndpointSink() {
    @Override
    public void update(List<Endpoint> endpoints) {
      if (!closed.get()) {
        Endpoints.this.update(endpoints);
      }
    }

    @Override
    public boolean takesDeltas() {
      return router.takesDeltas();
    }

    @Override
    public void apply(Collection<Endpoint> upserts, Collection<String> removedAddresses) {
      if (!closed.get()) {
        change(r -> r.apply(upserts, removedAddresses, Endpoints.this::newEndpoint));
      }
    }
  };

  private void change(Function<Router<EndpointClient<Req, Rep>>,
      List<Node<EndpointClient<Req, Rep>>>> how) {
    synchronized (updateLock) {
      if (closed.get()) {
        throw new IllegalStateException("client " + client + " is closed");
      }
      changed(how.apply(router));
      if (checks != null) {
        checks.update(router.nodes());
      }
    }
    if (!firstEndpoints.isDone() && !router.nodes().isEmpty()) {
      firstEndpoints.complete(null); // outside the lock: the waiting calls start now
    }
    waiters.updated(); // outside the lock too: the callers' conditions run here
  }

  // Guarded by updateLock.
  private void changed(List<Node<EndpointClient<Req, Rep>>> removed) {
    for (Node<EndpointClient<Req, Rep>> n : router.nodes()) {
      EndpointClient<Req, Rep> ep = n.value();
      if (ep.node == null) {
        ep.node = n;
        if (ep.host.isEjected()) {
          n.setEjected(true);
        }
        ep.metrics = metrics.endpoint(ep);
      }
    }
    for (Node<EndpointClient<Req, Rep>> n : removed) {
      EndpointClient<Req, Rep> ep = n.value();
      byAddress.remove(ep.address, ep);
      detector.remove(ep.host);
      n.setAvailability(Availability.CLOSED);
      ep.pool.drain().whenComplete((v, e) -> ep.metrics.close());
      // A request stuck past every deadline and late-answer wait cannot hold the pool open.
      loops.group().next().schedule(ep.pool::close, drainNanos, TimeUnit.NANOSECONDS);
    }
  }

  private EndpointClient<Req, Rep> newEndpoint(Endpoint e) {
    ConnectionPool<Req, Rep> pool =
        new ConnectionPool<>(e, poolConfig, protocol, loops, ticker, random);
    EndpointClient<Req, Rep> ep = new EndpointClient<>(e, pool, detector.add(e.address()));
    byAddress.put(ep.address, ep);
    return ep;
  }

  /** Starts active health checks (null: none) of the current endpoints and later ones. */
  void startChecks(ActiveChecks<EndpointClient<Req, Rep>> started) {
    if (started != null) {
      synchronized (updateLock) {
        checks = started;
        started.update(router.nodes());
      }
    }
  }

  /**
   * Starts taking the endpoints from a source through an {@link EndpointFeed} (its defaults).
   * Until its first endpoints arrive, for at most {@code startupWaitNanos}, a call that finds
   * none waits for them (within its deadline) instead of failing at once.
   */
  EndpointFeed feed(EndpointSource source, long startupWaitNanos) {
    if (!firstEndpoints.isDone()) {
      awaitsSource = true;
      io.netty.util.concurrent.ScheduledFuture<?> end = loops.group().next().schedule(
          () -> firstEndpoints.complete(null), startupWaitNanos, TimeUnit.NANOSECONDS);
      firstEndpoints.whenComplete((v, e) -> end.cancel(false));
    }
    EndpointFeed f = EndpointFeed.builder(source).stateLog(states).start(sink);
    feed = f;
    metrics.source(f);
    return f;
  }

  /** A connection to an endpoint failed: a source that can (DNS) re-reads early. */
  void connectFailed() {
    EndpointFeed f = feed;
    if (f != null) {
      f.refresh(); // at most once a second, by the feed's own rule
    }
  }

  /** Returns the current endpoints, in update order. */
  List<Endpoint> endpoints() {
    List<Endpoint> out = new ArrayList<>();
    for (Node<EndpointClient<Req, Rep>> n : router.nodes()) {
      out.add(n.endpoint());
    }
    return out;
  }

  /** Returns a snapshot of every current endpoint's counters. */
  List<EndpointStats> stats() {
    List<EndpointStats> out = new ArrayList<>();
    for (Node<EndpointClient<Req, Rep>> n : router.nodes()) {
      out.add(n.value().stats());
    }
    return out;
  }

  EndpointFeed feed() {
    return feed;
  }

  /** Returns the client's status now, read from the nodes, the router and the feed. */
  BalancerStatus status() {
    List<EndpointStatus> out = new ArrayList<>();
    for (Node<EndpointClient<Req, Rep>> n : router.nodes()) {
      EndpointStatus s =
          EndpointStatus.of(n, router.ramp(n), n.isEjected() ? n.value().ejection : null);
      ConnectionPool<Req, Rep> pool = n.value().pool;
      Throwable refused = pool.lastConnectFailure();
      if (refused != null && pool.connections() == 0) {
        // A pool that keeps connections retries within a second: its endpoint is unreachable
        // until one opens, as a gRPC subchannel in TRANSIENT_FAILURE. Without, the failure is
        // the last call's word, kept until the next connect: said, but not taken as down.
        boolean retried = pool.config.minConnections() > 0;
        String cause = "connection: " + (retried ? "" : "last attempt: ")
            + (refused.getMessage() != null ? refused.getMessage() : refused.toString());
        s = new EndpointStatus(s.address(), s.weight(), s.ramp(), s.rttEstimateNanos(),
            s.pending(), retried ? Availability.CLOSED : s.availability(), s.health(),
            s.healthCause() == null ? cause : s.healthCause() + "; " + cause, s.zone(),
            s.priority(), s.labels());
      }
      out.add(s);
    }
    EndpointFeed f = feed;
    return new BalancerStatus(client, router.name(), Instant.now(), out, router.levels(),
        f == null ? null : f.status());
  }

  /** Stops taking endpoints from the source, if there is one. */
  void closeFeed() {
    EndpointFeed f = feed;
    if (f != null) {
      f.close();
    }
    firstEndpoints.complete(null);
  }

  /** Whether the client awaits its source's first endpoints (and the startup wait is on). */
  boolean awaitingFirst() {
    return awaitsSource && !firstEndpoints.isDone();
  }

  /**
   * Runs {@code start} once the source's first endpoints have arrived or the startup wait has
   * ended: at once if that happened since {@link #awaitingFirst()} said it had not (a pick
   * that raced the first update), else then.
   */
  void awaitFirst(Runnable start) {
    firstEndpoints.thenRun(start);
  }

  /** Closes every current pool; the future completes when their channels have closed. */
  CompletableFuture<Void> close() {
    List<CompletableFuture<Void>> pools = new ArrayList<>();
    synchronized (updateLock) {
      if (checks != null) {
        checks.close();
      }
      for (Node<EndpointClient<Req, Rep>> n : router.nodes()) {
        pools.add(n.value().pool.close());
        n.value().metrics.close();
      }
    }
    return CompletableFuture.allOf(pools.toArray(new CompletableFuture<?>[0]));
  }

  /** How long a removed pool may drain: grace, deadline and late-answer wait together. */
  static long drainNanos(long graceNanos, long timeoutNanos, long lateWaitNanos) {
    return Durations.saturatedAdd(Durations.saturatedAdd(graceNanos, timeoutNanos),
        lateWaitNanos);
  }
}
