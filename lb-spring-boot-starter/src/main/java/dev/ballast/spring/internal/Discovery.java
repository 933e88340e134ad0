package dev.ballast.spring.internal;

import dev.ballast.core.config.OptionSet;
import dev.ballast.core.config.ValueType;
import dev.ballast.core.config.Values;
import java.util.List;

/**
 * A client's {@code discovery.*} options: at most one registry, turned into the target of its
 * endpoint source ({@code zookeeper://}, {@code etcd://}, {@code ballast-dns://}, {@code
 * xds://}).
 */
public final class Discovery {

  private Discovery() {}

  /**
   * The options: {@code zookeeper.connect}, {@code zookeeper.path} and {@code
   * zookeeper.connectionTimeout} (default 10 s, at most 30 s), {@code etcd.endpoints}
   * and {@code etcd.prefix}, {@code dns.name} (host:port or an SRV name) and {@code dns.server},
   * {@code xds.cluster} (an EDS resource) with {@code xds.server} and {@code xds.nodeId} (without
   * a server: gRPC's bootstrap, {@code GRPC_XDS_BOOTSTRAP}).
   */
  public static final OptionSet<Values, Values> OPTIONS = OptionSet.ofValues("discovery",
      Discovery::target, List.of(
          Values.option("zookeeper.connect", ValueType.STRING, null, "10.0.0.5:2181", "zk"),
          Values.option("zookeeper.path", ValueType.STRING, null, "/services/orders", "orders"),
          Values.option("zookeeper.connectionTimeout", ValueType.DURATION, null,
              java.time.Duration.ofSeconds(2), "soon"),
          Values.option("etcd.endpoints", ValueType.STRING, null, "10.0.0.5:2379", "etcd"),
          Values.option("etcd.prefix", ValueType.STRING, null, "/services/orders/", "orders"),
          Values.option("dns.name", ValueType.STRING, null, "_grpc._tcp.orders.internal",
              "orders"),
          Values.option("dns.server", ValueType.STRING, null, "10.0.0.53:53", "a b"),
          Values.option("xds.cluster", ValueType.STRING, null, "orders", ""),
          Values.option("xds.server", ValueType.STRING, null, "xds.internal:18000", "a b"),
          Values.option("xds.nodeId", ValueType.STRING, null, "orders-client-1", "a b")));

  /**
   * Returns the target, or null when no registry is given.
   *
   * @throws IllegalArgumentException naming the missing or malformed option, or two registries
   */
  public static String target(Values v) {
    String zk = v.get("zookeeper.connect", null);
    String zkPath = v.get("zookeeper.path", null);
    java.time.Duration zkTimeout = v.get("zookeeper.connectionTimeout", null);
    String etcd = v.get("etcd.endpoints", null);
    String etcdPrefix = v.get("etcd.prefix", null);
    String dns = v.get("dns.name", null);
    String dnsServer = v.get("dns.server", null);
    boolean useZk = zk != null || zkPath != null || zkTimeout != null;
    boolean useEtcd = etcd != null || etcdPrefix != null;
    boolean useDns = dns != null || dnsServer != null;
    String xds = v.get("xds.cluster", null);
    String xdsServer = v.get("xds.server", null);
    String xdsNode = v.get("xds.nodeId", null);
    boolean useXds = xds != null || xdsServer != null || xdsNode != null;
    if ((useZk ? 1 : 0) + (useEtcd ? 1 : 0) + (useDns ? 1 : 0) + (useXds ? 1 : 0) > 1) {
      throw new IllegalArgumentException("discovery: two registries (expected: at most one of"
          + " zookeeper, etcd, dns, xds)");
    }
    if (useXds) {
      return xdsTarget(xds, xdsServer, xdsNode);
    }
    if (useZk) {
      return "zookeeper://" + servers("zookeeper.connect", zk)
          + path("zookeeper.path", zkPath, "/services/orders")
          + (zkTimeout == null ? "" : "?connectionTimeout=" + ValueType.format(zkTimeout));
    }
    if (useEtcd) {
      return "etcd://" + servers("etcd.endpoints", etcd)
          + path("etcd.prefix", etcdPrefix, "/services/orders/");
    }
    if (useDns) {
      String name = dns == null ? "" : dns.trim();
      int colon = name.lastIndexOf(':');
      if (!name.startsWith("_") && (colon <= 0 || !name.substring(colon + 1).matches("\\d{1,5}"))) {
        throw new IllegalArgumentException("dns.name: " + dns + " (expected: a name with a port"
            + " or an SRV name, e.g. orders.internal:8080 or _grpc._tcp.orders.internal)");
      }
      String server = dnsServer == null ? "" : dnsServer.trim();
      if (!server.matches("[\\w.\\-]*(:\\d{1,5})?")) {
        throw new IllegalArgumentException("dns.server: " + dnsServer
            + " (expected: host[:port], e.g. 10.0.0.53:53)");
      }
      return "ballast-dns://" + server + "/" + name;
    }
    return null;
  }

  private static String xdsTarget(String cluster, String server, String node) {
    if (cluster == null || cluster.isBlank()) {
      throw new IllegalArgumentException("xds.cluster: " + cluster
          + " (expected: the EDS resource to follow, e.g. orders)");
    }
    String path = "/" + java.net.URLEncoder.encode(cluster.trim(),
        java.nio.charset.StandardCharsets.UTF_8).replace("+", "%20");
    if (server == null) {
      if (node != null) {
        throw new IllegalArgumentException("xds.nodeId: " + node + " (expected: with xds.server;"
            + " without it the bootstrap names the node)");
      }
      return "xds://" + path;
    }
    String s = servers("xds.server", server);
    if (s.contains(",")) {
      throw new IllegalArgumentException("xds.server: " + server
          + " (expected: one host:port, e.g. xds.internal:18000)");
    }
    if (node != null && !node.trim().matches("[\\w.\\-:]+")) {
      throw new IllegalArgumentException("xds.nodeId: " + node
          + " (expected: letters, digits, '.', '-', '_' or ':')");
    }
    return "xds://" + s + path + (node == null ? "" : "?node=" + node.trim());
  }

  private static String servers(String option, String value) {
    String v = value == null ? "" : value.trim();
    if (!v.matches("[\\w.\\-]+:\\d{1,5}(,[\\w.\\-]+:\\d{1,5})*")) {
      throw new IllegalArgumentException(option + ": " + value
          + " (expected: host:port[,host:port...], e.g. 10.0.0.5:2181,10.0.0.6:2181)");
    }
    return v;
  }

  private static String path(String option, String value, String example) {
    String v = value == null ? "" : value.trim();
    if (v.length() < 2 || !v.startsWith("/") || v.contains(" ")) {
      throw new IllegalArgumentException(option + ": " + value
          + " (expected: an absolute path, e.g. " + example + ")");
    }
    return v;
  }
}
