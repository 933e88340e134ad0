package dev.ballast.netty.internal;

import dev.ballast.core.Endpoint;
import dev.ballast.core.Node;
import dev.ballast.netty.EndpointStats;
import java.util.concurrent.atomic.LongAdder;

/** The value a client's balancer balances: one endpoint's pool and detection state. */
final class EndpointClient<Req, Rep> {
  final Endpoint endpoint;
  final String address;
  final ConnectionPool<Req, Rep> pool;
  final Ejections.Host host;
  final LongAdder successes = new LongAdder();
  final LongAdder failures = new LongAdder();
  volatile Node<EndpointClient<Req, Rep>> node;
  volatile ClientMetrics.ForEndpoint metrics = ClientMetrics.ForEndpoint.NOOP;
  // why outlier detection ejected it last, for its status
  volatile String ejection;

  EndpointClient(Endpoint endpoint, ConnectionPool<Req, Rep> pool, Ejections.Host host) {
    this.endpoint = endpoint;
    this.address = endpoint.address();
    this.pool = pool;
    this.host = host;
  }

  // Outlier detection's verdict: an ejected endpoint reads as unhealthy, so that its priority
  // and zone lose its share too.
  void setEjected(boolean ejected) {
    Node<EndpointClient<Req, Rep>> n = node;
    if (n != null) {
      n.setEjected(ejected);
    }
  }

  EndpointStats stats() {
    Node<EndpointClient<Req, Rep>> n = node;
    return new EndpointStats(address, n == null ? endpoint.weight() : n.weight(),
        n == null ? 0 : n.pending(), pool.inFlight(), pool.connections(), pool.idleConnections(),
        pool.pendingAcquires(), host.isEjected(), successes.sum(), failures.sum(),
        n == null ? -1 : n.rttEstimateNanos(), n == null ? endpoint.health() : n.health());
  }
}
