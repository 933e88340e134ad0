package dev.ballast.discovery.xds;

import static dev.ballast.discovery.xds.ControlPlane.cla;
import static dev.ballast.discovery.xds.ControlPlane.endpoint;
import static dev.ballast.discovery.xds.ControlPlane.locality;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.core.Endpoint;
import dev.ballast.core.source.EndpointFeed;
import dev.ballast.core.source.EndpointSink;
import dev.ballast.core.subset.FallbackPolicy;
import dev.ballast.core.subset.SubsetSelector;
import dev.ballast.discovery.xds.internal.EdsEntries;
import io.envoyproxy.envoy.config.core.v3.HealthStatus;
import io.envoyproxy.envoy.config.endpoint.v3.LbEndpoint;
import io.envoyproxy.envoy.service.discovery.v3.DeltaDiscoveryRequest;
import io.envoyproxy.envoy.service.discovery.v3.DeltaDiscoveryResponse;
import io.envoyproxy.envoy.service.discovery.v3.Resource;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * An {@link XdsSource} speaking incremental (Delta) xDS, chosen by its bootstrap, to a real
 * control plane (java-control-plane's delta ADS server on 127.0.0.1), feeding a subset selector
 * through an {@link EndpointFeed}: endpoints added, removed and reweighted reach the selector as
 * changes; a malformed resource is NACKed and the last good set kept; after a restart of the
 * control plane the client subscribes again with the version of the resource it holds; a removal
 * of the resource keeps the last set.
 */
class XdsDeltaTest {

  private static final String NODE = "orders-client";
  private static final String CLUSTER = "orders";

  private ControlPlane controlPlane;
  private Recorder source;
  private SubsetSelector<String> selector;
  private Watched sink;
  private EndpointFeed feed;

  @BeforeEach
  void start() throws Exception {
    controlPlane = new ControlPlane();
    XdsBootstrap bootstrap = XdsBootstrap.fromJson("{\"xds_servers\": [{\"server_uri\": \""
        + controlPlane.address() + "\", \"channel_creds\": [{\"type\": \"insecure\"}],"
        + " \"server_features\": [\"xds_v3\", \"delta_grpc\"]}], \"node\": {\"id\": \"" + NODE
        + "\"}}");
    source = new Recorder(XdsSource.builder(bootstrap, CLUSTER)
        .backoff(n -> Duration.ofMillis(20)).build());
    selector = SubsetSelector.<String>builder().selectors(List.of(List.of("zone")))
        .fallbackPolicy(FallbackPolicy.ANY_ENDPOINT).build();
    sink = new Watched(EndpointSink.of(selector, Endpoint::address, n -> { }));
    feed = EndpointFeed.builder(source).window(Duration.ZERO).start(sink);
  }

  @AfterEach
  void stop() throws Exception {
    feed.close();
    controlPlane.close();
  }

  @Test
  void addsRemovesAndReweightsArriveAsChangesAndEachResponseIsAckedByItsNonce()
      throws Exception {
    assertThat(source.source().delta()).isTrue();
    controlPlane.setEndpoints(NODE, "1", cla(CLUSTER, locality("a", 0, ep(1, 1), ep(2, 2),
        ep(3, 3)), locality("b", 0, ep(4, 1))));
    source.awaitSet(set -> set.size() == 4);
    DeltaDiscoveryRequest subscribe = controlPlane.deltaRequests.get(0);
    assertThat(subscribe.getTypeUrl()).isEqualTo(EdsEntries.TYPE_URL);
    assertThat(subscribe.getResourceNamesSubscribeList()).containsExactly(CLUSTER);
    assertThat(subscribe.getInitialResourceVersionsMap()).as("nothing held yet").isEmpty();
    assertThat(subscribe.getNode().getId()).isEqualTo(NODE);
    DeltaDiscoveryResponse first = response("1");
    DeltaDiscoveryRequest ack = controlPlane.awaitDeltaRequest(0,
        r -> r.getResponseNonce().equals(first.getNonce()));
    assertThat(ack.hasErrorDetail()).isFalse();
    assertThat(source.source().acceptedVersion()).isEqualTo("1");
    awaitSelector(Map.of(address(1), 1, address(2), 2, address(3), 3, address(4), 1));

    // 2 reweighted, 3 removed, 5 added: the source pushes those three, not the set
    controlPlane.setEndpoints(NODE, "2", cla(CLUSTER, locality("a", 0, ep(1, 1), ep(2, 5),
        ep(5, 1)), locality("b", 0, ep(4, 1))));
    source.awaitSet(set -> set.containsKey(address(5)));
    assertThat(source.changes()).isEqualTo(1);
    assertThat(source.lastUpserts().keySet()).containsExactlyInAnyOrder(address(2), address(5));
    assertThat(source.lastRemoved()).containsExactly(address(3));
    awaitSelector(Map.of(address(1), 1, address(2), 5, address(5), 1, address(4), 1));
    assertThat(sink.lastApply()).as("the selector's last change: upserts, then removals")
        .isEqualTo(List.of(2, 1));
    DeltaDiscoveryResponse second = response("2");
    controlPlane.awaitDeltaRequest(0, r -> r.getResponseNonce().equals(second.getNonce())
        && !r.hasErrorDetail());
  }

  @Test
  void aMalformedResourceIsNackedAndTheLastGoodSetKept() throws Exception {
    controlPlane.setEndpoints(NODE, "1", cla(CLUSTER, locality("a", 0, ep(1, 1), ep(2, 2))));
    awaitSelector(Map.of(address(1), 1, address(2), 2));
    long pushes = source.sets();

    controlPlane.setEndpoints(NODE, "2", cla(CLUSTER, locality("a", 0, ep(1, 3),
        endpoint("127.0.0.1", 0, 1, HealthStatus.HEALTHY))));
    DeltaDiscoveryRequest nack = controlPlane.awaitDeltaRequest(0,
        DeltaDiscoveryRequest::hasErrorDetail);
    assertThat(nack.getResponseNonce()).isEqualTo(response("2").getNonce());
    assertThat(nack.getErrorDetail().getCode()).isEqualTo(3); // INVALID_ARGUMENT
    assertThat(nack.getErrorDetail().getMessage())
        .startsWith("EDS resource orders, locality 0, endpoint 1: port: 0");
    assertThat(source.source().lastRejection()).isEqualTo(nack.getErrorDetail().getMessage());
    assertThat(source.source().acceptedVersion()).isEqualTo("1");
    assertThat(source.sets()).as("pushes after the NACK").isEqualTo(pushes);
    awaitSelector(Map.of(address(1), 1, address(2), 2));

    controlPlane.setEndpoints(NODE, "3", cla(CLUSTER, locality("a", 0, ep(1, 3), ep(2, 2))));
    awaitSelector(Map.of(address(1), 3, address(2), 2));
    assertThat(source.source().lastRejection()).isNull();
    assertThat(source.source().acceptedVersion()).isEqualTo("3");
  }

  @Test
  void afterARestartOfTheControlPlaneTheClientSendsTheVersionItHolds() throws Exception {
    controlPlane.setEndpoints(NODE, "1", cla(CLUSTER, locality("a", 0, ep(1, 1), ep(2, 2))));
    awaitSelector(Map.of(address(1), 1, address(2), 2));
    DeltaDiscoveryResponse sent = response("1");
    controlPlane.awaitDeltaRequest(0, r -> r.getResponseNonce().equals(sent.getNonce()));
    String held = resource(sent).getVersion();
    assertThat(held).isNotEmpty();

    long failures = source.failures();
    controlPlane.stop();
    source.awaitFailure(failures);
    int before = controlPlane.deltaRequests.size();
    // meanwhile the control plane's state changes: an endpoint is reweighted, one added
    controlPlane.setEndpoints(NODE, "2", cla(CLUSTER, locality("a", 0, ep(1, 1), ep(2, 4),
        ep(3, 1))));
    awaitSelector(Map.of(address(1), 1, address(2), 2)); // the last set serves meanwhile
    controlPlane.restart();

    DeltaDiscoveryRequest again = controlPlane.awaitDeltaRequest(before,
        r -> r.getResponseNonce().isEmpty());
    assertThat(again.getResourceNamesSubscribeList()).containsExactly(CLUSTER);
    assertThat(again.getInitialResourceVersionsMap()).containsExactly(Map.entry(CLUSTER, held));
    awaitSelector(Map.of(address(1), 1, address(2), 4, address(3), 1));
    assertThat(feed.isUp()).isTrue();
  }

  @Test
  void aRemovalOfTheResourceKeepsTheLastSetUntilItIsSentAgain() throws Exception {
    controlPlane.setEndpoints(NODE, "1", cla(CLUSTER, locality("a", 0, ep(1, 1), ep(2, 2))));
    awaitSelector(Map.of(address(1), 1, address(2), 2));
    long failures = source.failures();

    controlPlane.setEndpoints(NODE, "2"); // no EDS resource: the control plane removes it
    source.awaitFailure(failures);
    DeltaDiscoveryResponse removal = response("2");
    assertThat(removal.getRemovedResourcesList()).containsExactly(CLUSTER);
    assertThat(controlPlane.awaitDeltaRequest(0, r -> r.getResponseNonce()
        .equals(removal.getNonce())).hasErrorDetail()).as("the removal is ACKed").isFalse();
    awaitSelector(Map.of(address(1), 1, address(2), 2));

    // sent again as it was: nothing to apply, but the feed hears that its source is back
    long sets = source.sets();
    controlPlane.setEndpoints(NODE, "3", cla(CLUSTER, locality("a", 0, ep(1, 1), ep(2, 2))));
    source.awaitSet(set -> source.sets() > sets);
    assertThat(source.changes()).as("a whole set, not an empty change").isZero();

    controlPlane.setEndpoints(NODE, "4", cla(CLUSTER, locality("a", 0, ep(3, 1))));
    awaitSelector(Map.of(address(3), 1));
    assertThat(feed.isUp()).isTrue();
  }

  private static LbEndpoint ep(int port, int weight) {
    return endpoint(port, weight);
  }

  private static String address(int port) {
    return "127.0.0.1:" + port;
  }

  private DeltaDiscoveryResponse response(String version) {
    return controlPlane.deltaResponses.stream()
        .filter(r -> r.getSystemVersionInfo().equals(version)).findFirst()
        .orElseThrow(() -> new AssertionError("no response of version " + version));
  }

  private static Resource resource(DeltaDiscoveryResponse r) {
    return r.getResourcesList().stream().filter(res -> res.getName().equals(CLUSTER))
        .findFirst().orElseThrow();
  }

  /** Waits (up to 10 s) until the selector holds exactly these addresses with these weights. */
  private void awaitSelector(Map<String, Integer> want) throws InterruptedException {
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    synchronized (sink) {
      while (!held().equals(want)) {
        long left = end - System.nanoTime();
        if (left <= 0) {
          assertThat(held()).as("the selector's endpoints").isEqualTo(want);
        }
        TimeUnit.NANOSECONDS.timedWait(sink, left);
      }
    }
  }

  private Map<String, Integer> held() {
    return selector.nodes().stream().map(n -> n.endpoint())
        .collect(Collectors.toMap(Endpoint::address, Endpoint::weight));
  }

  /** The selector's sink, noting each call so that a test waits on the change itself. */
  private static final class Watched implements EndpointSink {
    private final EndpointSink target;
    private List<Integer> lastApply; // upserts and removals of the last delta; guarded by this

    Watched(EndpointSink target) {
      this.target = target;
    }

    @Override
    public synchronized void update(List<Endpoint> endpoints) {
      target.update(endpoints);
      notifyAll();
    }

    @Override
    public boolean takesDeltas() {
      return true;
    }

    @Override
    public synchronized void apply(Collection<Endpoint> upserts, Collection<String> removed) {
      target.apply(upserts, removed);
      lastApply = List.of(upserts.size(), removed.size());
      notifyAll();
    }

    synchronized List<Integer> lastApply() {
      return lastApply;
    }
  }
}
