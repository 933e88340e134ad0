package dev.ballast.discovery.xds;

import io.envoyproxy.controlplane.cache.v3.SimpleCache;
import io.envoyproxy.controlplane.cache.v3.Snapshot;
import io.envoyproxy.controlplane.server.DiscoveryServerCallbacks;
import io.envoyproxy.controlplane.server.V3DiscoveryServer;
import io.envoyproxy.envoy.config.cluster.v3.Cluster;
import io.envoyproxy.envoy.config.core.v3.Address;
import io.envoyproxy.envoy.config.core.v3.HealthStatus;
import io.envoyproxy.envoy.config.core.v3.Locality;
import io.envoyproxy.envoy.config.core.v3.SocketAddress;
import io.envoyproxy.envoy.config.endpoint.v3.ClusterLoadAssignment;
import io.envoyproxy.envoy.config.endpoint.v3.Endpoint;
import io.envoyproxy.envoy.config.endpoint.v3.LbEndpoint;
import io.envoyproxy.envoy.config.endpoint.v3.LocalityLbEndpoints;
import io.envoyproxy.envoy.config.listener.v3.Listener;
import io.envoyproxy.envoy.config.route.v3.RouteConfiguration;
import io.envoyproxy.envoy.service.discovery.v3.DeltaDiscoveryRequest;
import io.envoyproxy.envoy.service.discovery.v3.DeltaDiscoveryResponse;
import io.envoyproxy.envoy.service.discovery.v3.DiscoveryRequest;
import io.envoyproxy.envoy.service.discovery.v3.DiscoveryResponse;
import io.grpc.Server;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * A real xDS control plane for tests: java-control-plane's V3 discovery server over a snapshot
 * cache (one group per node id), on 127.0.0.1, recording every request it receives and every
 * response it sends, State of the World and Delta. Stopped and restarted on the same port, it
 * keeps its snapshots (as a control plane rebuilding its state from its own sources would).
 */
final class ControlPlane implements AutoCloseable {

  final SimpleCache<String> cache = new SimpleCache<>(node -> node.getId());
  final List<DiscoveryRequest> requests = new CopyOnWriteArrayList<>();
  final List<Long> requestNanos = new CopyOnWriteArrayList<>(); // System.nanoTime of each
  final List<DiscoveryResponse> responses = new CopyOnWriteArrayList<>();
  final List<DeltaDiscoveryRequest> deltaRequests = new CopyOnWriteArrayList<>();
  final List<DeltaDiscoveryResponse> deltaResponses = new CopyOnWriteArrayList<>();
  private final V3DiscoveryServer discovery;
  private Server server;
  private int port;

  ControlPlane() throws IOException {
    discovery = new V3DiscoveryServer(new DiscoveryServerCallbacks() {
      @Override
      public void onV3StreamRequest(long streamId, DiscoveryRequest request) {
        requestNanos.add(System.nanoTime());
        requests.add(request);
        synchronized (ControlPlane.this) {
          ControlPlane.this.notifyAll();
        }
      }

      @Override
      public void onV3StreamDeltaRequest(long streamId, DeltaDiscoveryRequest request) {
        deltaRequests.add(request);
        synchronized (ControlPlane.this) {
          ControlPlane.this.notifyAll();
        }
      }

      @Override
      public void onV3StreamDeltaResponse(long streamId, DeltaDiscoveryRequest request,
          DeltaDiscoveryResponse response) {
        deltaResponses.add(response);
      }

      @Override
      public void onV3StreamResponse(long streamId, DiscoveryRequest request,
          DiscoveryResponse response) {
        responses.add(response);
      }
    }, cache);
    start(0);
  }

  private void start(int p) throws IOException {
    server = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", p))
        .addService(discovery.getAggregatedDiscoveryServiceImpl())
        .build().start();
    port = server.getPort();
  }

  int port() {
    return port;
  }

  /** {@code 127.0.0.1:port}. */
  String address() {
    return "127.0.0.1:" + port;
  }

  /** Sets a node's snapshot: these clusters and EDS resources, at this version. */
  void set(String node, String version, List<Cluster> clusters, List<Listener> listeners,
      List<RouteConfiguration> routes, ClusterLoadAssignment... endpoints) {
    cache.setSnapshot(node, Snapshot.create(clusters, List.of(endpoints), listeners, routes,
        List.of(), version));
  }

  /** Sets a node's snapshot of EDS resources only. */
  void setEndpoints(String node, String version, ClusterLoadAssignment... endpoints) {
    set(node, version, List.of(), List.of(), List.of(), endpoints);
  }

  /** Waits (up to 10 s) for a request the predicate accepts, and returns it. */
  DiscoveryRequest awaitRequest(Predicate<DiscoveryRequest> p) throws InterruptedException {
    return await(requests, 0, p);
  }

  /**
   * Waits (up to 10 s) for a Delta request from index {@code from} on that the predicate
   * accepts, and returns it.
   */
  DeltaDiscoveryRequest awaitDeltaRequest(int from, Predicate<DeltaDiscoveryRequest> p)
      throws InterruptedException {
    return await(deltaRequests, from, p);
  }

  private synchronized <R> R await(List<R> received, int from, Predicate<R> p)
      throws InterruptedException {
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (true) {
      for (R r : received.subList(Math.min(from, received.size()), received.size())) {
        if (p.test(r)) {
          return r;
        }
      }
      long left = end - System.nanoTime();
      if (left <= 0) {
        throw new AssertionError("no such request within 10 s; received: " + received.size());
      }
      TimeUnit.NANOSECONDS.timedWait(this, left);
    }
  }

  /**
   * Waits (up to 10 s) for a request received later than {@code nanos} (System.nanoTime) that
   * the predicate accepts, and returns its index.
   */
  synchronized int awaitRequestAfter(long nanos, Predicate<DiscoveryRequest> p)
      throws InterruptedException {
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    int i = 0;
    while (true) {
      for (; i < requests.size(); i++) {
        if (requestNanos.get(i) - nanos > 0 && p.test(requests.get(i))) {
          return i;
        }
      }
      long left = end - System.nanoTime();
      if (left <= 0) {
        throw new AssertionError("no such request within 10 s; received: " + requests.size());
      }
      TimeUnit.NANOSECONDS.timedWait(this, left);
    }
  }

  /** Stops serving; streams end. */
  void stop() throws InterruptedException {
    server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
  }

  /** Serves again on the same port. */
  void restart() throws IOException {
    start(port);
  }

  @Override
  public void close() throws InterruptedException {
    stop();
  }

  // EDS resources

  static ClusterLoadAssignment cla(String cluster, LocalityLbEndpoints... localities) {
    return ClusterLoadAssignment.newBuilder().setClusterName(cluster)
        .addAllEndpoints(List.of(localities)).build();
  }

  static LocalityLbEndpoints locality(String zone, int priority, LbEndpoint... endpoints) {
    return LocalityLbEndpoints.newBuilder()
        .setLocality(Locality.newBuilder().setRegion("us-east").setZone(zone))
        .setPriority(priority)
        .setLoadBalancingWeight(com.google.protobuf.UInt32Value.of(1))
        .addAllLbEndpoints(List.of(endpoints)).build();
  }

  static LbEndpoint endpoint(int port, int weight) {
    return endpoint("127.0.0.1", port, weight, HealthStatus.HEALTHY);
  }

  static LbEndpoint endpoint(String host, int port, int weight, HealthStatus health) {
    return LbEndpoint.newBuilder()
        .setEndpoint(Endpoint.newBuilder().setAddress(Address.newBuilder().setSocketAddress(
            SocketAddress.newBuilder().setAddress(host).setPortValue(port))))
        .setLoadBalancingWeight(com.google.protobuf.UInt32Value.of(weight))
        .setHealthStatus(health)
        .build();
  }
}
