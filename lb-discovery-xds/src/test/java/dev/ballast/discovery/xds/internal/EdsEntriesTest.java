package dev.ballast.discovery.xds.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.InvalidProtocolBufferException;

import com.google.protobuf.UInt32Value;
import dev.ballast.core.Endpoint;
import dev.ballast.core.Health;
import io.envoyproxy.envoy.config.core.v3.Address;
import io.envoyproxy.envoy.config.core.v3.HealthStatus;
import io.envoyproxy.envoy.config.core.v3.Locality;
import io.envoyproxy.envoy.config.core.v3.Pipe;
import io.envoyproxy.envoy.config.core.v3.SocketAddress;
import io.envoyproxy.envoy.config.endpoint.v3.ClusterLoadAssignment;
import io.envoyproxy.envoy.config.endpoint.v3.LbEndpoint;
import io.envoyproxy.envoy.config.endpoint.v3.LocalityLbEndpoints;
import java.util.Map;
import org.junit.jupiter.api.Test;

class EdsEntriesTest {

  @Test
  void endpointsCarryWeightLocalityPriorityAndHealth() {
    ClusterLoadAssignment cla = ClusterLoadAssignment.newBuilder().setClusterName("orders")
        .addEndpoints(LocalityLbEndpoints.newBuilder()
            .setLocality(Locality.newBuilder().setRegion("eu").setZone("eu-1a").setSubZone("r7"))
            .addLbEndpoints(endpoint("10.0.0.1", 80, 3, HealthStatus.HEALTHY))
            .addLbEndpoints(LbEndpoint.newBuilder().setEndpoint(
                io.envoyproxy.envoy.config.endpoint.v3.Endpoint.newBuilder()
                    .setAddress(socket("10.0.0.2", 80)))))
        .addEndpoints(LocalityLbEndpoints.newBuilder().setPriority(1)
            .setLocality(Locality.newBuilder().setZone("eu-1b"))
            .addLbEndpoints(endpoint("::1", 81, 1, HealthStatus.DEGRADED)))
        .build();

    Map<String, String> entries = EdsEntries.entries(cla);

    assertThat(entries.keySet()).containsExactly("10.0.0.1:80", "10.0.0.2:80", "[::1]:81");
    assertThat(Endpoint.parse(entries.get("10.0.0.1:80"))).isEqualTo(Endpoint.parse(
        "10.0.0.1:80;weight=3;region=eu;zone=eu-1a;subzone=r7;priority=0;health=healthy"));
    assertThat(Endpoint.parse(entries.get("10.0.0.2:80")).weight()).as("no weight: 1")
        .isEqualTo(1);
    Endpoint p1 = Endpoint.parse(entries.get("[::1]:81"));
    assertThat(p1.priority()).isEqualTo(1);
    assertThat(p1.zone()).isEqualTo("eu-1b");
    assertThat(p1.label(EdsEntries.REGION)).as("an empty region is no label").isNull();
    assertThat(p1.health()).isEqualTo(Health.DEGRADED);
  }

  @Test
  void readingSuccessiveResourcesGivesWhatEachGivesAlone() {
    EdsEntries eds = new EdsEntries();
    java.util.SplittableRandom r = new java.util.SplittableRandom(7);
    for (int round = 0; round < 20; round++) {
      LocalityLbEndpoints.Builder a = LocalityLbEndpoints.newBuilder()
          .setLocality(Locality.newBuilder().setZone("a"));
      LocalityLbEndpoints.Builder b = LocalityLbEndpoints.newBuilder().setPriority(r.nextInt(2))
          .setLocality(Locality.newBuilder().setZone("b"));
      for (int i = 0; i < 20; i++) {
        HealthStatus h = HealthStatus.forNumber(r.nextInt(6));
        LbEndpoint e = endpoint("10.0.0." + i, 80, 1 + r.nextInt(3), h);
        // an endpoint moves between localities now and then: same proto, other labels
        (r.nextInt(4) == 0 ? b : a).addLbEndpoints(e);
      }
      ClusterLoadAssignment cla = ClusterLoadAssignment.newBuilder().setClusterName("orders")
          .addEndpoints(a).addEndpoints(b).build();
      if (round % 7 == 3) {
        ClusterLoadAssignment bad = cla.toBuilder().addEndpoints(LocalityLbEndpoints.newBuilder()
            .addLbEndpoints(endpoint("10.0.0.1", 0, 1, HealthStatus.HEALTHY))).build();
        assertThatThrownBy(() -> eds.read(bad)).hasMessageContaining("port: 0");
      }
      assertThat(eds.read(cla)).as("round " + round).isEqualTo(EdsEntries.entries(cla));
    }
  }

  @Test
  void aChangeIsWhatDiffersFromTheResourceReadBefore() {
    EdsEntries eds = new EdsEntries();
    java.util.SplittableRandom r = new java.util.SplittableRandom(11);
    Map<String, String> before = Map.of();
    for (int round = 0; round < 30; round++) {
      LocalityLbEndpoints.Builder a = LocalityLbEndpoints.newBuilder()
          .setLocality(Locality.newBuilder().setZone(r.nextInt(5) == 0 ? "b" : "a"));
      for (int i = 0; i < 20; i++) {
        if (r.nextInt(4) != 0) { // an endpoint comes and goes
          a.addLbEndpoints(endpoint("10.0.0." + i, 80, 1 + r.nextInt(3), HealthStatus.HEALTHY));
        }
      }
      ClusterLoadAssignment cla = ClusterLoadAssignment.newBuilder().setClusterName("orders")
          .addEndpoints(a).build();
      if (round % 9 == 4) {
        ClusterLoadAssignment bad = cla.toBuilder().addEndpoints(LocalityLbEndpoints.newBuilder()
            .addLbEndpoints(endpoint("10.0.0.1", 0, 1, HealthStatus.HEALTHY))).build();
        assertThatThrownBy(() -> eds.readChange(bad)).hasMessageContaining("port: 0");
      }
      EdsEntries.Change change = eds.readChange(cla);
      Map<String, String> after = EdsEntries.entries(cla);
      // the oracle: a plain comparison of the two whole sets
      Map<String, String> prev = before;
      Map<String, String> upserts = new java.util.HashMap<>(after);
      upserts.entrySet().removeIf(e -> e.getValue().equals(prev.get(e.getKey())));
      java.util.Set<String> removed = new java.util.HashSet<>(before.keySet());
      removed.removeAll(after.keySet());
      assertThat(change.entries()).as("round " + round).isEqualTo(after);
      assertThat(change.upserts()).as("round " + round).isEqualTo(upserts);
      assertThat(change.removed()).as("round " + round)
          .containsExactlyInAnyOrderElementsOf(removed);
      assertThat(change.isEmpty()).isEqualTo(upserts.isEmpty() && removed.isEmpty());
      before = after;
    }
  }

  @Test
  void anEndpointSpelledAnotherWayIsTheSameEntryAndRepeatingItRejects() {
    EdsEntries eds = new EdsEntries();
    LbEndpoint upper = endpoint("Host-A", 80, 2, HealthStatus.HEALTHY);
    LbEndpoint lower = LbEndpoint.newBuilder().setEndpoint(
        io.envoyproxy.envoy.config.endpoint.v3.Endpoint.newBuilder().setHostname("ignored")
            .setAddress(socket("host-a", 80))).setLoadBalancingWeight(UInt32Value.of(2))
        .build(); // another spelling, health (unknown) and a hostname: the same entry
    LbEndpoint other = endpoint("10.0.0.9", 80, 1, HealthStatus.HEALTHY);
    LbEndpoint otherOneByDefault = LbEndpoint.newBuilder().setEndpoint(
        io.envoyproxy.envoy.config.endpoint.v3.Endpoint.newBuilder()
            .setAddress(socket("10.0.0.9", 80))).build(); // no weight: 1, as before
    EdsEntries.Change first = eds.readChange(cla(upper, other));
    assertThat(first.upserts()).isEqualTo(first.entries()).hasSize(2);

    EdsEntries.Change same = eds.readChange(cla(lower, otherOneByDefault));
    assertThat(same.isEmpty()).as("written otherwise, the same entries: " + same).isTrue();
    assertThat(same.entries()).isEqualTo(first.entries());

    assertThatThrownBy(() -> eds.readChange(cla(lower, other, upper)))
        .hasMessage("EDS resource orders, locality 0, endpoint 2: address host-a:80 repeated"
            + " (expected: each address once in a resource)");
    EdsEntries.Change moved = eds.readChange(cla(endpoint("Host-A", 80, 3,
        HealthStatus.DRAINING)));
    assertThat(moved.upserts()).containsOnlyKeys("host-a:80");
    assertThat(Endpoint.parse(moved.upserts().get("host-a:80")).health())
        .isEqualTo(Health.UNHEALTHY);
    assertThat(moved.removed()).containsExactly("10.0.0.9:80");
  }

  @Test
  void anEndpointIsReadFromItsBytesWhereverTheyAre() throws Exception {
    EdsEntries eds = new EdsEntries();
    LbEndpoint a = endpoint("10.0.0.1", 80, 2, HealthStatus.HEALTHY);
    LbEndpoint b = endpoint("10.0.0.2", 80, 1, HealthStatus.HEALTHY);
    eds.readChange(cla(a, b));

    // the same bytes in a locality of another zone: another entry
    ClusterLoadAssignment moved = cla(a).toBuilder().addEndpoints(LocalityLbEndpoints
        .newBuilder().setLocality(Locality.newBuilder().setZone("b")).addLbEndpoints(b)).build();
    EdsEntries.Change change = eds.readChange(moved);
    assertThat(change.upserts()).containsOnlyKeys("10.0.0.2:80");
    assertThat(Endpoint.parse(change.upserts().get("10.0.0.2:80")).zone()).isEqualTo("b");

    // the same bytes twice in one resource: rejected as any repeated address
    assertThatThrownBy(() -> eds.readChange(cla(a, b, a))).hasMessage("EDS resource orders,"
        + " locality 0, endpoint 2: address 10.0.0.1:80 repeated (expected: each address once"
        + " in a resource)");

    // an endpoint's bytes that are no LbEndpoint reject the resource, naming the endpoint
    ByteString.Output out = ByteString.newOutput();
    CodedOutputStream w = CodedOutputStream.newInstance(out);
    w.writeString(1, "orders");
    ByteString locality = LocalityLbEndpoints.newBuilder().addLbEndpoints(a).build()
        .toByteString().concat(ByteString.copyFrom(new byte[] {0x12, 2, (byte) 0xff, 0x7f}));
    w.writeBytes(2, locality);
    w.flush();
    assertThatThrownBy(() -> eds.readChange(PackedEds.of(out.toByteString(), "resource 0")))
        .hasMessageStartingWith("EDS resource orders, locality 0, endpoint 1: unparsable (");

    // a stray end-group tag among the fields: unparsable, as protobuf's own reader finds it
    ByteString stray = ByteString.copyFrom(new byte[] {0x0c}).concat(cla(a).toByteString());
    assertThatThrownBy(() -> ClusterLoadAssignment.parseFrom(stray))
        .isInstanceOf(InvalidProtocolBufferException.class);
    assertThatThrownBy(() -> PackedEds.of(stray, "resource 0"))
        .hasMessageStartingWith("resource 0: unparsable (");

    // fields in another order than protobuf writes them: the same resource
    ByteString.Output reordered = ByteString.newOutput();
    w = CodedOutputStream.newInstance(reordered);
    LocalityLbEndpoints zoneB = moved.getEndpoints(1);
    w.writeBytes(2, moved.getEndpoints(0).toByteString());
    w.writeBytes(2, lbEndpointsFirst(zoneB));
    w.writeString(1, "orders");
    w.flush();
    EdsEntries.Change same = eds.readChange(PackedEds.of(reordered.toByteString(), "r"));
    assertThat(same.isEmpty()).as(same.toString()).isTrue();
    assertThat(same.entries()).isEqualTo(EdsEntries.entries(moved));
  }

  // a locality's bytes with its endpoints before its locality
  private static ByteString lbEndpointsFirst(LocalityLbEndpoints group) throws Exception {
    ByteString.Output out = ByteString.newOutput();
    CodedOutputStream w = CodedOutputStream.newInstance(out);
    for (LbEndpoint e : group.getLbEndpointsList()) {
      w.writeMessage(2, e);
    }
    w.writeMessage(1, group.getLocality());
    w.flush();
    return out.toByteString();
  }

  private static ClusterLoadAssignment cla(LbEndpoint... endpoints) {
    LocalityLbEndpoints.Builder a = LocalityLbEndpoints.newBuilder()
        .setLocality(Locality.newBuilder().setZone("a"));
    for (LbEndpoint e : endpoints) {
      a.addLbEndpoints(e);
    }
    return ClusterLoadAssignment.newBuilder().setClusterName("orders").addEndpoints(a).build();
  }

  @Test
  void healthStatusesMapAsEnvoyCountsThem() {
    assertThat(EdsEntries.health(HealthStatus.UNKNOWN)).isEqualTo(Health.HEALTHY);
    assertThat(EdsEntries.health(HealthStatus.HEALTHY)).isEqualTo(Health.HEALTHY);
    assertThat(EdsEntries.health(HealthStatus.DEGRADED)).isEqualTo(Health.DEGRADED);
    assertThat(EdsEntries.health(HealthStatus.UNHEALTHY)).isEqualTo(Health.UNHEALTHY);
    assertThat(EdsEntries.health(HealthStatus.DRAINING)).isEqualTo(Health.UNHEALTHY);
    assertThat(EdsEntries.health(HealthStatus.TIMEOUT)).isEqualTo(Health.UNHEALTHY);
    assertThat(EdsEntries.health(HealthStatus.UNRECOGNIZED)).isEqualTo(Health.UNHEALTHY);
  }

  @Test
  void aBadFieldRejectsTheResourceNamingIt() {
    assertRejected(LocalityLbEndpoints.newBuilder().setPriority(128)
        .addLbEndpoints(endpoint("10.0.0.1", 80, 1, HealthStatus.HEALTHY)),
        "EDS resource orders, locality 0: priority 128 (expected: 0..127)");
    assertRejected(LocalityLbEndpoints.newBuilder()
        .addLbEndpoints(endpoint("10.0.0.1", 80, 1, HealthStatus.HEALTHY))
        .addLbEndpoints(endpoint("10.0.0.1", 80, 2, HealthStatus.HEALTHY)),
        "EDS resource orders, locality 0, endpoint 1: address 10.0.0.1:80 repeated");
    assertRejected(LocalityLbEndpoints.newBuilder()
        .addLbEndpoints(endpoint("10.0.0.1", 80, -1, HealthStatus.HEALTHY)),
        "EDS resource orders, locality 0, endpoint 0: load_balancing_weight 4294967295 "
            + "(expected: 1..2147483647)");
    assertRejected(LocalityLbEndpoints.newBuilder()
        .addLbEndpoints(endpoint("10.0.0.1", 70000, 1, HealthStatus.HEALTHY)),
        "EDS resource orders, locality 0, endpoint 0: port: 70000");
    assertRejected(LocalityLbEndpoints.newBuilder()
        .addLbEndpoints(endpoint("not a host", 80, 1, HealthStatus.HEALTHY)),
        "EDS resource orders, locality 0, endpoint 0: host");
    assertRejected(LocalityLbEndpoints.newBuilder()
        .addLbEndpoints(LbEndpoint.newBuilder().setEndpoint(
            io.envoyproxy.envoy.config.endpoint.v3.Endpoint.newBuilder().setAddress(
                Address.newBuilder().setPipe(Pipe.newBuilder().setPath("/run/x.sock"))))),
        "EDS resource orders, locality 0, endpoint 0: address pipe (expected: a socket address)");
    assertRejected(LocalityLbEndpoints.newBuilder()
        .addLbEndpoints(LbEndpoint.newBuilder().setEndpointName("a")),
        "EDS resource orders, locality 0, endpoint 0: no endpoint");
    assertRejected(LocalityLbEndpoints.newBuilder()
        .addLbEndpoints(LbEndpoint.newBuilder().setEndpoint(
            io.envoyproxy.envoy.config.endpoint.v3.Endpoint.newBuilder().setAddress(
                Address.newBuilder().setSocketAddress(SocketAddress.newBuilder()
                    .setAddress("10.0.0.1").setNamedPort("http"))))),
        "EDS resource orders, locality 0, endpoint 0: named_port (expected: port_value)");
    assertRejected(LocalityLbEndpoints.newBuilder()
        .setLocality(Locality.newBuilder().setZone("a;b"))
        .addLbEndpoints(endpoint("10.0.0.1", 80, 1, HealthStatus.HEALTHY)),
        "EDS resource orders, locality 0, endpoint 0: label zone");
    assertRejected(LocalityLbEndpoints.newBuilder()
        .addLbEndpoints(endpoint("10.0.0.1", 80, Integer.MAX_VALUE - 1, HealthStatus.HEALTHY))
        .addLbEndpoints(endpoint("10.0.0.2", 80, 2, HealthStatus.HEALTHY)),
        "EDS resource orders, locality 0, endpoint 1: load_balancing_weight 2 takes the "
            + "resource's total to 2147483648 (expected: a total of at most 2147483647)");
  }

  @Test
  void weightsSummingToTheLimitAcrossLocalitiesAreTaken() {
    int half = (1 << 30) - 2; // 2^31-4 in all
    ClusterLoadAssignment cla = ClusterLoadAssignment.newBuilder().setClusterName("orders")
        .addEndpoints(LocalityLbEndpoints.newBuilder().setLocality(Locality.newBuilder()
            .setZone("a")).addLbEndpoints(endpoint("10.0.0.1", 80, half, HealthStatus.HEALTHY)))
        .addEndpoints(LocalityLbEndpoints.newBuilder().setPriority(1).setLocality(Locality
            .newBuilder().setZone("b")).addLbEndpoints(
                endpoint("10.0.0.2", 80, half, HealthStatus.HEALTHY))
            .addLbEndpoints(endpoint("10.0.0.3", 80, 3, HealthStatus.HEALTHY)))
        .build();
    assertThat(EdsEntries.entries(cla)).hasSize(3);
    ClusterLoadAssignment over = cla.toBuilder().setEndpoints(1, cla.getEndpoints(1).toBuilder()
        .setLbEndpoints(1, endpoint("10.0.0.3", 80, 4, HealthStatus.HEALTHY))).build();
    assertThatThrownBy(() -> new EdsEntries().read(over))
        .hasMessage("EDS resource orders, locality 1, endpoint 1: load_balancing_weight 4 takes"
            + " the resource's total to 2147483648 (expected: a total of at most 2147483647)");
  }

  private static void assertRejected(LocalityLbEndpoints.Builder locality, String message) {
    ClusterLoadAssignment cla = ClusterLoadAssignment.newBuilder().setClusterName("orders")
        .addEndpoints(locality).build();
    assertThatThrownBy(() -> EdsEntries.entries(cla))
        .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith(message);
  }

  /**
   * A locality holding a field that protobuf-java's parser reads but {@code
   * CodedInputStream.skipField} refuses (a varint whose 10th byte has its continuation bit set,
   * which protobuf-java 4 ends there): read as protobuf reads it, as grpc-java's xDS client does,
   * not refused as unparsable (a fuzzer found such a resource).
   */
  @Test
  void aLocalityProtobufReadsButSkipFieldRefusesIsReadAsProtobufReadsIt() throws Exception {
    ByteString.Output locality = ByteString.newOutput();
    LocalityLbEndpoints.newBuilder().addLbEndpoints(endpoint("10.0.0.1", 80, 3,
        HealthStatus.HEALTHY)).build().writeTo(locality);
    locality.write(new byte[] {(byte) 0x98, 0x06}); // field 99, a varint:
    for (int i = 0; i < 9; i++) {
      locality.write(0xff);
    }
    locality.write(0x81); // its 10th byte, continuation bit set
    ByteString.Output bytes = ByteString.newOutput();
    CodedOutputStream out = CodedOutputStream.newInstance(bytes);
    out.writeString(1, "orders");
    out.writeBytes(2, locality.toByteString());
    out.flush();
    ClusterLoadAssignment parsed = ClusterLoadAssignment.parseFrom(bytes.toByteString());

    EdsEntries.Change read =
        new EdsEntries().readChange(PackedEds.of(bytes.toByteString(), "resource 0"));

    assertThat(read.entries()).isEqualTo(EdsEntries.entries(parsed))
        .containsOnlyKeys("10.0.0.1:80");
  }

  private static LbEndpoint endpoint(String host, int port, int weight, HealthStatus health) {
    return LbEndpoint.newBuilder()
        .setEndpoint(io.envoyproxy.envoy.config.endpoint.v3.Endpoint.newBuilder()
            .setAddress(socket(host, port)))
        .setLoadBalancingWeight(UInt32Value.of(weight)).setHealthStatus(health).build();
  }

  private static Address socket(String host, int port) {
    return Address.newBuilder().setSocketAddress(
        SocketAddress.newBuilder().setAddress(host).setPortValue(port)).build();
  }
}
