package dev.ballast.discovery.xds;

import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.ListValue;
import com.google.protobuf.Struct;
import com.google.protobuf.Value;
import com.google.protobuf.util.JsonFormat;
import dev.ballast.core.config.OptionSet;
import dev.ballast.core.config.ValueType;
import dev.ballast.core.config.Values;
import io.envoyproxy.envoy.config.core.v3.Node;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;

/**
 * Where a source finds its control plane and how it names itself there: the first of the
 * bootstrap's {@code xds_servers} (its {@code server_uri}, a gRPC target, and its {@code
 * channel_creds}: {@code insecure} or {@code tls} with the JVM's trust store) and the {@code
 * node} (id, cluster, locality, metadata) sent on the stream. The file is gRPC's bootstrap JSON,
 * so one file serves grpc-xds channels and Ballast's sources:
 *
 * <pre>{@code
 * {"xds_servers": [{"server_uri": "xds.internal:18000", "channel_creds": [{"type": "insecure"}]}],
 *  "node": {"id": "orders-client-1", "locality": {"zone": "us-east-1a"}}}
 * }</pre>
 *
 * <p>The server's {@code server_features} may list {@value #DELTA_FEATURE} (the name of Envoy's
 * {@code ApiConfigSource.ApiType} for the incremental protocol): a source then follows its
 * resource over incremental (Delta) xDS; otherwise State of the World. gRPC ignores a feature it
 * does not know, so the file still serves grpc-xds channels (which speak State of the World):
 *
 * <pre>{@code
 * {"xds_servers": [{"server_uri": "xds.internal:18000", "channel_creds": [{"type": "insecure"}],
 *                   "server_features": ["xds_v3", "delta_grpc"]}],
 *  "node": {"id": "orders-client-1"}}
 * }</pre>
 *
 * <p>Other fields (authorities, certificate providers, other server features) are ignored.
 */
public final class XdsBootstrap {

  /** The environment variable naming a bootstrap file, as gRPC reads it. */
  public static final String FILE_ENV = "GRPC_XDS_BOOTSTRAP";
  /** The system property naming a bootstrap file, as gRPC reads it. */
  public static final String FILE_PROPERTY = "io.grpc.xds.bootstrap";
  /** The environment variable holding the bootstrap JSON itself, as gRPC reads it. */
  public static final String CONFIG_ENV = "GRPC_XDS_BOOTSTRAP_CONFIG";
  /** The system property holding the bootstrap JSON itself, as gRPC reads it. */
  public static final String CONFIG_PROPERTY = "io.grpc.xds.bootstrapConfig";
  /** The server feature asking for incremental (Delta) xDS. */
  public static final String DELTA_FEATURE = "delta_grpc";

  /**
   * The options of a bootstrap in Ballast's configuration model: {@code bootstrap} (a file) or
   * {@code server} (host:port, plaintext) with {@code nodeId} (default {@code ballast}). Read by
   * {@link #fromValues}.
   */
  public static final OptionSet<Values, Values> OPTIONS = OptionSet.ofValues("xds",
      XdsBootstrap::check, List.of(
          Values.option("bootstrap", ValueType.STRING, null, "/etc/xds/bootstrap.json", ""),
          Values.option("server", ValueType.STRING, null, "xds.internal:18000", "a b"),
          Values.option("nodeId", ValueType.STRING, null, "orders-client-1", "")));

  private final String serverUri;
  private final boolean tls;
  private final Node node;
  private final boolean delta;

  private XdsBootstrap(String serverUri, boolean tls, Node node, boolean delta) {
    this.serverUri = serverUri;
    this.tls = tls;
    this.node = node;
    this.delta = delta;
  }

  /**
   * Returns a bootstrap for a control plane reached in plaintext at a gRPC target (e.g. {@code
   * 127.0.0.1:18000}), as the node {@code nodeId}, State of the World.
   *
   * @throws IllegalArgumentException if the target or the id is blank
   */
  public static XdsBootstrap of(String serverUri, String nodeId) {
    return new XdsBootstrap(checkText("server_uri", serverUri, "xds.internal:18000"), false,
        Node.newBuilder().setId(checkText("node.id", nodeId, "orders-client-1")).build(), false);
  }

  /**
   * Reads gRPC's bootstrap JSON.
   *
   * @throws IllegalArgumentException naming the bad or missing field
   */
  public static XdsBootstrap fromJson(String json) {
    Struct.Builder root = Struct.newBuilder();
    try {
      JsonFormat.parser().merge(json, root);
    } catch (InvalidProtocolBufferException e) {
      throw new IllegalArgumentException("xDS bootstrap: not a JSON object (" + e.getMessage()
          + ")", e);
    }
    Value servers = root.getFieldsOrDefault("xds_servers", null);
    if (servers == null || !servers.hasListValue() || servers.getListValue().getValuesCount() == 0
        || !servers.getListValue().getValues(0).hasStructValue()) {
      throw new IllegalArgumentException("xDS bootstrap: xds_servers missing or empty (expected: "
          + "[{\"server_uri\": \"host:port\", \"channel_creds\": [{\"type\": \"insecure\"}]}])");
    }
    Struct server = servers.getListValue().getValues(0).getStructValue();
    Value uri = server.getFieldsOrDefault("server_uri", Value.getDefaultInstance());
    String serverUri = checkText("xds_servers[0].server_uri", uri.getStringValue(),
        "xds.internal:18000");
    boolean tls = tls(server.getFieldsOrDefault("channel_creds", Value.getDefaultInstance()));
    boolean delta = false;
    Value features = server.getFieldsOrDefault("server_features", null);
    if (features != null) {
      if (!features.hasListValue()) {
        throw new IllegalArgumentException("xDS bootstrap: xds_servers[0].server_features is not"
            + " a list (expected: e.g. [\"xds_v3\", \"" + DELTA_FEATURE + "\"])");
      }
      for (Value f : features.getListValue().getValuesList()) {
        delta |= f.getStringValue().equals(DELTA_FEATURE);
      }
    }
    Node.Builder node = Node.newBuilder();
    Value nodeJson = root.getFieldsOrDefault("node", null);
    if (nodeJson != null) {
      if (!nodeJson.hasStructValue()) {
        throw new IllegalArgumentException("xDS bootstrap: node is not an object");
      }
      try {
        JsonFormat.parser().ignoringUnknownFields()
            .merge(JsonFormat.printer().print(nodeJson.getStructValue()), node);
      } catch (InvalidProtocolBufferException e) {
        throw new IllegalArgumentException("xDS bootstrap: node: " + e.getMessage(), e);
      }
    }
    return new XdsBootstrap(serverUri, tls, node.build(), delta);
  }

  /**
   * Reads gRPC's bootstrap JSON from a file.
   *
   * @throws IllegalArgumentException naming the file and what was wrong with it
   */
  public static XdsBootstrap fromFile(Path file) {
    String json;
    try {
      json = Files.readString(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new IllegalArgumentException("xDS bootstrap: " + file + " unreadable ("
          + e.getMessage() + ")", e);
    }
    try {
      return fromJson(json);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(e.getMessage() + " in " + file, e);
    }
  }

  /**
   * Reads the bootstrap where gRPC looks for it: the file named by {@value #FILE_ENV} or
   * {@value #FILE_PROPERTY}, else the JSON in {@value #CONFIG_ENV} or {@value #CONFIG_PROPERTY}.
   *
   * @throws IllegalArgumentException if none is set, or the bootstrap is bad
   */
  public static XdsBootstrap fromEnvironment() {
    String file = firstSet(System.getenv(FILE_ENV), System.getProperty(FILE_PROPERTY));
    if (file != null) {
      return fromFile(Path.of(file));
    }
    String json = firstSet(System.getenv(CONFIG_ENV), System.getProperty(CONFIG_PROPERTY));
    if (json != null) {
      return fromJson(json);
    }
    throw new IllegalArgumentException("xDS bootstrap: none found (expected: a file named by "
        + FILE_ENV + " or -D" + FILE_PROPERTY + ", or the JSON in " + CONFIG_ENV + " or -D"
        + CONFIG_PROPERTY + ")");
  }

  /**
   * Returns the bootstrap of {@link #OPTIONS}' values: the file if {@code bootstrap} is set,
   * else {@code server} and {@code nodeId}, else the environment's ({@link #fromEnvironment}).
   *
   * @throws IllegalArgumentException naming the option, or both a file and a server
   */
  public static XdsBootstrap fromValues(Values v) {
    check(v);
    String file = v.get("bootstrap", null);
    String server = v.get("server", null);
    if (file != null) {
      return fromFile(Path.of(file));
    }
    if (server != null) {
      return of(server.trim(), v.get("nodeId", "ballast"));
    }
    return fromEnvironment();
  }

  // the checks that need no file nor environment
  private static void check(Values v) {
    String file = v.get("bootstrap", null);
    String server = v.get("server", null);
    String nodeId = v.get("nodeId", null);
    if (file != null && (server != null || nodeId != null)) {
      throw new IllegalArgumentException("xds: bootstrap and server/nodeId both set (expected: "
          + "a bootstrap file, or a server and a node id)");
    }
    if (file != null && file.isBlank()) {
      throw new IllegalArgumentException("bootstrap: empty (expected: a file, e.g. "
          + "/etc/xds/bootstrap.json)");
    }
    if (server != null && !server.trim().matches("[\\w.\\-\\[\\]:]+:\\d{1,5}")) {
      throw new IllegalArgumentException("server: " + server
          + " (expected: host:port, e.g. xds.internal:18000)");
    }
    if (nodeId != null && (server == null || nodeId.isBlank())) {
      throw new IllegalArgumentException("nodeId: " + nodeId
          + " (expected: a non-empty id, with a server)");
    }
  }

  /** Returns the control plane's gRPC target, e.g. {@code xds.internal:18000}. */
  public String serverUri() {
    return serverUri;
  }

  /** Returns whether the channel to the control plane uses TLS (else plaintext). */
  public boolean tls() {
    return tls;
  }

  /**
   * Returns whether the server's features list {@value #DELTA_FEATURE}: sources speak
   * incremental (Delta) xDS to it unless {@link XdsSource.Builder#delta} says otherwise.
   */
  public boolean delta() {
    return delta;
  }

  /** Returns the node's id, as the control plane sees it. */
  public String nodeId() {
    return node.getId();
  }

  /** The node sent in the stream's first request. */
  Node node() {
    return node;
  }

  @Override
  public String toString() {
    return "XdsBootstrap{server_uri=" + serverUri + (tls ? ", tls" : "") + ", node.id="
        + node.getId() + (delta ? ", delta" : "") + "}";
  }

  private static boolean tls(Value creds) {
    if (!creds.hasListValue() || creds.getListValue().getValuesCount() == 0) {
      throw new IllegalArgumentException("xDS bootstrap: xds_servers[0].channel_creds missing"
          + " (expected: [{\"type\": \"insecure\"}] or [{\"type\": \"tls\"}])");
    }
    ListValue list = creds.getListValue();
    StringBuilder seen = new StringBuilder();
    for (Value c : list.getValuesList()) {
      String type = c.getStructValue().getFieldsOrDefault("type", Value.getDefaultInstance())
          .getStringValue();
      if (type.equals("insecure")) {
        return false;
      }
      if (type.equals("tls")) {
        return true;
      }
      seen.append(seen.length() == 0 ? "" : ", ").append(type);
    }
    throw new IllegalArgumentException("xDS bootstrap: xds_servers[0].channel_creds: " + seen
        + " (expected: insecure or tls)");
  }

  private static String firstSet(String a, String b) {
    return a != null && !a.isBlank() ? a : b != null && !b.isBlank() ? b : null;
  }

  private static String checkText(String field, String value, String example) {
    Objects.requireNonNull(value, field);
    if (value.isBlank()) {
      throw new IllegalArgumentException("xDS bootstrap: " + field + " empty (expected: e.g. "
          + example + ")");
    }
    return value;
  }
}
