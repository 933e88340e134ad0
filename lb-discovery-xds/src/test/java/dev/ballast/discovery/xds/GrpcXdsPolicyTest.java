package dev.ballast.discovery.xds;

import static dev.ballast.discovery.xds.ControlPlane.cla;
import static dev.ballast.discovery.xds.ControlPlane.endpoint;
import static org.assertj.core.api.Assertions.assertThat;

import com.github.xds.type.v3.TypedStruct;
import com.google.protobuf.Any;
import com.google.protobuf.Struct;
import com.google.protobuf.UInt32Value;
import dev.ballast.grpc.testing.Marshallers;
import io.envoyproxy.envoy.config.cluster.v3.Cluster;
import io.envoyproxy.envoy.config.cluster.v3.LoadBalancingPolicy;
import io.envoyproxy.envoy.config.core.v3.AggregatedConfigSource;
import io.envoyproxy.envoy.config.core.v3.ApiVersion;
import io.envoyproxy.envoy.config.core.v3.ConfigSource;
import io.envoyproxy.envoy.config.core.v3.Locality;
import io.envoyproxy.envoy.config.core.v3.TypedExtensionConfig;
import io.envoyproxy.envoy.config.endpoint.v3.LbEndpoint;
import io.envoyproxy.envoy.config.endpoint.v3.LocalityLbEndpoints;
import io.envoyproxy.envoy.config.listener.v3.ApiListener;
import io.envoyproxy.envoy.config.listener.v3.Listener;
import io.envoyproxy.envoy.config.route.v3.Route;
import io.envoyproxy.envoy.config.route.v3.RouteAction;
import io.envoyproxy.envoy.config.route.v3.RouteConfiguration;
import io.envoyproxy.envoy.config.route.v3.RouteMatch;
import io.envoyproxy.envoy.config.route.v3.VirtualHost;
import io.envoyproxy.envoy.extensions.filters.http.router.v3.Router;
import io.envoyproxy.envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager;
import io.envoyproxy.envoy.extensions.filters.network.http_connection_manager.v3.HttpFilter;
import io.envoyproxy.envoy.extensions.load_balancing_policies.wrr_locality.v3.WrrLocality;
import io.grpc.CallOptions;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerServiceDefinition;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.ServerCalls;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A grpc-xds channel ({@code xds:///orders}, its bootstrap pointing at java-control-plane on
 * 127.0.0.1) whose cluster names Ballast's {@code vnswrr} as its endpoint-picking policy (gRFC
 * A52: a {@code TypedStruct} whose type URL ends in the policy's name, under {@code
 * wrr_locality}): calls spread by VNSWRR over real gRPC servers, 1/2/3 exactly within a locality.
 */
class GrpcXdsPolicyTest {

  private static final String NODE = "grpc-client";
  private static final MethodDescriptor<byte[], byte[]> CALL =
      MethodDescriptor.<byte[], byte[]>newBuilder()
          .setType(MethodDescriptor.MethodType.UNARY)
          .setFullMethodName("ballast.test.Backend/Call")
          .setRequestMarshaller(Marshallers.BYTES).setResponseMarshaller(Marshallers.BYTES).build();

  private static ControlPlane controlPlane;
  private static final List<Server> servers = new ArrayList<>();
  private static final List<AtomicLong> calls = new ArrayList<>();

  @BeforeAll
  static void start() throws IOException {
    // integer endpoint weights (locality weight x endpoint weight), not fixed-point shares:
    // read once by grpc-xds, which no other test of this JVM loads
    System.setProperty("GRPC_EXPERIMENTAL_PF_WEIGHTED_SHUFFLING", "false");
    controlPlane = new ControlPlane();
    System.setProperty(XdsBootstrap.CONFIG_PROPERTY, "{\"xds_servers\": [{\"server_uri\": \""
        + controlPlane.address() + "\", \"channel_creds\": [{\"type\": \"insecure\"}],"
        + " \"server_features\": [\"xds_v3\"]}], \"node\": {\"id\": \"" + NODE + "\"}}");
    for (int i = 0; i < 3; i++) {
      AtomicLong count = new AtomicLong();
      calls.add(count);
      servers.add(NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
          .addService(ServerServiceDefinition.builder("ballast.test.Backend")
              .addMethod(CALL, ServerCalls.asyncUnaryCall((req, out) -> {
                count.incrementAndGet();
                out.onNext(req);
                out.onCompleted();
              })).build())
          .build().start());
    }
  }

  @AfterAll
  static void stop() throws InterruptedException {
    System.clearProperty(XdsBootstrap.CONFIG_PROPERTY);
    for (Server s : servers) {
      s.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
    controlPlane.close();
  }

  @Test
  void aClusterNamingVnswrrSpreadsCallsByItsWeightsWithinALocality() throws Exception {
    controlPlane.set(NODE, "1", List.of(cluster("orders-cluster", "vnswrr")),
        List.of(listener("orders", "orders-cluster")), List.of(),
        cla("orders-cluster", LocalityLbEndpoints.newBuilder()
            .setLocality(Locality.newBuilder().setZone("us-east-1a"))
            .setLoadBalancingWeight(UInt32Value.of(5))
            .addLbEndpoints(ep(0, 1)).addLbEndpoints(ep(1, 2)).addLbEndpoints(ep(2, 3))
            .build()));
    ManagedChannel channel = Grpc.newChannelBuilder("xds:///orders",
        InsecureChannelCredentials.create()).build();
    try {
      long[] want = {100, 200, 300};
      long[] got = null;
      long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
      while (System.nanoTime() < end) {
        calls.forEach(c -> c.set(0));
        for (int i = 0; i < 600; i++) {
          ClientCalls.blockingUnaryCall(channel, CALL,
              CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS), new byte[] {1});
        }
        got = calls.stream().mapToLong(AtomicLong::get).toArray();
        if (Arrays.equals(got, want)) {
          break; // every subchannel READY: whole turns of the ring, exactly
        }
      }
      assertThat(got).as("calls per server, weights 1/2/3").containsExactly(want);
      assertThat(controlPlane.requests).as("the channel ACKed the cluster naming vnswrr")
          .anyMatch(r -> r.getTypeUrl().endsWith("envoy.config.cluster.v3.Cluster")
              && r.getVersionInfo().equals("1") && !r.hasErrorDetail());
    } finally {
      channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
  }

  private static LbEndpoint ep(int server, int weight) {
    return endpoint(servers.get(server).getPort(), weight);
  }

  /** An EDS cluster over ADS whose endpoint-picking policy is the named Ballast policy. */
  static Cluster cluster(String name, String ballastPolicy) {
    Any policy = Any.pack(TypedStruct.newBuilder()
        .setTypeUrl("type.googleapis.com/" + ballastPolicy)
        .setValue(Struct.getDefaultInstance()).build());
    LoadBalancingPolicy picking = LoadBalancingPolicy.newBuilder()
        .addPolicies(LoadBalancingPolicy.Policy.newBuilder().setTypedExtensionConfig(
            TypedExtensionConfig.newBuilder().setName("ballast").setTypedConfig(policy)))
        .build();
    Any wrrLocality = Any.pack(WrrLocality.newBuilder().setEndpointPickingPolicy(picking).build());
    return Cluster.newBuilder().setName(name)
        .setType(Cluster.DiscoveryType.EDS)
        .setEdsClusterConfig(Cluster.EdsClusterConfig.newBuilder().setEdsConfig(
            ConfigSource.newBuilder().setAds(AggregatedConfigSource.getDefaultInstance())
                .setResourceApiVersion(ApiVersion.V3)))
        .setLoadBalancingPolicy(LoadBalancingPolicy.newBuilder()
            .addPolicies(LoadBalancingPolicy.Policy.newBuilder().setTypedExtensionConfig(
                TypedExtensionConfig.newBuilder().setName("wrr_locality")
                    .setTypedConfig(wrrLocality))))
        .build();
  }

  /** An API listener routing every call to the cluster (its route configuration inline). */
  static Listener listener(String name, String cluster) {
    RouteConfiguration routes = RouteConfiguration.newBuilder().setName(name + "-routes")
        .addVirtualHosts(VirtualHost.newBuilder().setName(name).addDomains("*")
            .addRoutes(Route.newBuilder().setMatch(RouteMatch.newBuilder().setPrefix(""))
                .setRoute(RouteAction.newBuilder().setCluster(cluster))))
        .build();
    HttpConnectionManager hcm = HttpConnectionManager.newBuilder().setRouteConfig(routes)
        .addHttpFilters(HttpFilter.newBuilder().setName("router")
            .setTypedConfig(Any.pack(Router.getDefaultInstance())))
        .build();
    return Listener.newBuilder().setName(name)
        .setApiListener(ApiListener.newBuilder().setApiListener(Any.pack(hcm))).build();
  }
}
