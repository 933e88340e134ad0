package dev.ballast.discovery.xds;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.core.source.EndpointSource;
import dev.ballast.core.source.EndpointSourceProvider;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class XdsBootstrapTest {

  static final String GRPC_BOOTSTRAP = """
      {
        "xds_servers": [
          {"server_uri": "xds.internal:18000", "channel_creds": [{"type": "insecure"}],
           "server_features": ["xds_v3"]}
        ],
        "node": {"id": "orders-client-1", "cluster": "orders",
                 "locality": {"zone": "us-east-1a", "sub_zone": "r1"},
                 "metadata": {"team": "payments"}},
        "certificate_providers": {}
      }
      """;

  @Test
  void readsGrpcsBootstrapFile(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("bootstrap.json");
    Files.writeString(file, GRPC_BOOTSTRAP);

    XdsBootstrap b = XdsBootstrap.fromFile(file);

    assertThat(b.serverUri()).isEqualTo("xds.internal:18000");
    assertThat(b.tls()).isFalse();
    assertThat(b.nodeId()).isEqualTo("orders-client-1");
    assertThat(b.node().getCluster()).isEqualTo("orders");
    assertThat(b.node().getLocality().getSubZone()).isEqualTo("r1");
    assertThat(b.node().getMetadata().getFieldsOrThrow("team").getStringValue())
        .isEqualTo("payments");
  }

  @Test
  void badBootstrapsNameTheirBadPart(@TempDir Path dir) {
    assertThatThrownBy(() -> XdsBootstrap.fromJson("{\"node\": {\"id\": \"a\"}}"))
        .hasMessageStartingWith("xDS bootstrap: xds_servers missing or empty");
    assertThatThrownBy(() -> XdsBootstrap.fromJson(
        "{\"xds_servers\": [{\"server_uri\": \"\", \"channel_creds\": [{\"type\": \"insecure\"}]}]}"))
        .hasMessageStartingWith("xDS bootstrap: xds_servers[0].server_uri empty");
    assertThatThrownBy(() -> XdsBootstrap.fromJson(
        "{\"xds_servers\": [{\"server_uri\": \"a:1\", \"channel_creds\": [{\"type\": \"google_default\"}]}]}"))
        .hasMessage("xDS bootstrap: xds_servers[0].channel_creds: google_default (expected: "
            + "insecure or tls)");
    assertThatThrownBy(() -> XdsBootstrap.fromJson("[1"))
        .hasMessageStartingWith("xDS bootstrap: not a JSON object");
    assertThatThrownBy(() -> XdsBootstrap.fromFile(dir.resolve("missing.json")))
        .hasMessageContaining("missing.json unreadable");
    assertThat(XdsBootstrap.fromJson("{\"xds_servers\": [{\"server_uri\": \"a:1\", "
        + "\"channel_creds\": [{\"type\": \"google_default\"}, {\"type\": \"tls\"}]}]}").tls())
        .as("the first supported credentials").isTrue();
  }

  @Test
  void optionsGiveAFileOrAServer(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("bootstrap.json");
    Files.writeString(file, GRPC_BOOTSTRAP);
    XdsBootstrap fromFile = XdsBootstrap.fromValues(
        XdsBootstrap.OPTIONS.decode(Map.of("bootstrap", file.toString())));
    assertThat(fromFile.nodeId()).isEqualTo("orders-client-1");
    XdsBootstrap server = XdsBootstrap.fromValues(
        XdsBootstrap.OPTIONS.decode(Map.of("server", "127.0.0.1:18000", "nodeId", "n1")));
    assertThat(server.serverUri()).isEqualTo("127.0.0.1:18000");
    assertThat(server.nodeId()).isEqualTo("n1");
    assertThatThrownBy(() -> XdsBootstrap.OPTIONS.decode(Map.of("server", "a b")))
        .hasMessageContaining("server: a b (expected: host:port");
    assertThatThrownBy(() -> XdsBootstrap.OPTIONS.decode(
        Map.of("server", "a:1", "bootstrap", "/b.json")))
        .hasMessageContaining("bootstrap and server/nodeId both set");
    assertThatThrownBy(() -> XdsBootstrap.OPTIONS.decode(Map.of("nodeId", "n1")))
        .hasMessageContaining("nodeId: n1 (expected: a non-empty id, with a server)");
    assertThat(XdsBootstrap.OPTIONS.names()).containsExactly("bootstrap", "server", "nodeId");
  }

  @Test
  void theEnvironmentsBootstrapAsGrpcFindsIt() {
    org.junit.jupiter.api.Assumptions.assumeTrue(System.getenv(XdsBootstrap.FILE_ENV) == null
        && System.getenv(XdsBootstrap.CONFIG_ENV) == null, "gRPC's bootstrap variables unset");
    assertThatThrownBy(XdsBootstrap::fromEnvironment)
        .hasMessageStartingWith("xDS bootstrap: none found (expected: a file named by "
            + "GRPC_XDS_BOOTSTRAP or -Dio.grpc.xds.bootstrap");
    System.setProperty(XdsBootstrap.CONFIG_PROPERTY, GRPC_BOOTSTRAP);
    try {
      assertThat(XdsBootstrap.fromEnvironment().nodeId()).isEqualTo("orders-client-1");
      try (EndpointSource s = EndpointSourceProvider.open("xds:///orders")) {
        assertThat(s.name()).isEqualTo("xds:orders");
      }
      assertThatThrownBy(() -> EndpointSourceProvider.open("xds:///orders?node=n1"))
          .hasMessageContaining("a node is named by the bootstrap");
    } finally {
      System.clearProperty(XdsBootstrap.CONFIG_PROPERTY);
    }
  }

  @Test
  void targetsOfTheXdsScheme() {
    try (EndpointSource s = EndpointSourceProvider.open("xds://127.0.0.1:18000/orders?node=n1")) {
      assertThat(s).isInstanceOf(XdsSource.class);
      assertThat(s.name()).isEqualTo("xds:orders");
    }
    try (EndpointSource s = EndpointSourceProvider.open(
        "xds://127.0.0.1:18000/outbound%7C8080%7C%7Corders.svc")) {
      assertThat(s.name()).as("a percent-encoded cluster name")
          .isEqualTo("xds:outbound|8080||orders.svc");
    }
    assertThatThrownBy(() -> EndpointSourceProvider.open("xds://127.0.0.1:18000/"))
        .hasMessageContaining("expected: a path, as in xds:///cluster");
    assertThatThrownBy(() -> EndpointSourceProvider.open("xds://127.0.0.1:18000/a?zone=b"))
        .hasMessageStartingWith("query: \"zone=b\" (expected: node=ID or delta=true|false,"
            + " each once, as in xds:///cluster[?delta=true] or");
    assertThatThrownBy(() -> EndpointSourceProvider.open("xds://127.0.0.1:18000/a?delta=yes"))
        .hasMessageStartingWith("query: \"delta=yes\" (expected: node=ID or delta=true|false");
    assertThatThrownBy(() -> EndpointSourceProvider.open(
        "xds://127.0.0.1:18000/a?delta=true&delta=false"))
        .hasMessageStartingWith("query: \"delta=false\" (expected:");
  }

  @Test
  void deltaIsChosenByTheServerFeaturesOrTheTargetStateOfTheWorldByDefault() {
    String json = "{\"xds_servers\": [{\"server_uri\": \"127.0.0.1:18000\", \"channel_creds\":"
        + " [{\"type\": \"insecure\"}]%s}], \"node\": {\"id\": \"n1\"}}";
    assertThat(XdsBootstrap.fromJson(json.formatted("")).delta()).isFalse();
    assertThat(XdsBootstrap.fromJson(json.formatted(", \"server_features\": [\"xds_v3\"]"))
        .delta()).isFalse();
    XdsBootstrap delta = XdsBootstrap.fromJson(
        json.formatted(", \"server_features\": [\"xds_v3\", \"delta_grpc\"]"));
    assertThat(delta.delta()).isTrue();
    assertThatThrownBy(() -> XdsBootstrap.fromJson(json.formatted(", \"server_features\": 1")))
        .hasMessageStartingWith("xDS bootstrap: xds_servers[0].server_features is not a list");
    try (XdsSource s = XdsSource.builder(delta, "orders").build()) {
      assertThat(s.delta()).isTrue();
    }
    try (XdsSource s = XdsSource.builder(delta, "orders").delta(false).build()) {
      assertThat(s.delta()).as("the builder over the bootstrap").isFalse();
    }
    try (EndpointSource s = EndpointSourceProvider.open("xds://127.0.0.1:18000/orders")) {
      assertThat(((XdsSource) s).delta()).isFalse();
    }
    try (EndpointSource s = EndpointSourceProvider.open(
        "xds://127.0.0.1:18000/orders?node=n1&delta=true")) {
      assertThat(((XdsSource) s).delta()).isTrue();
    }
  }
}
