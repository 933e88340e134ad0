package dev.ballast.spring;

import dev.ballast.spring.internal.PropertyChecks;

/** Turns a client's {@code discovery.*} properties into the target of its endpoint source. */
final class DiscoverySettings {

  private static final String ONE = "at most one of discovery.zookeeper, discovery.etcd, "
      + "discovery.dns";

  private DiscoverySettings() {}

  /**
   * Returns the target, or null when no source is configured.
   *
   * @throws InvalidBallastPropertyException naming a missing or malformed property, or two
   *     sources given
   */
  static String target(PropertyChecks p, DiscoveryProperties d) {
    DiscoveryProperties.ZooKeeper zk = d.getZookeeper();
    DiscoveryProperties.Etcd etcd = d.getEtcd();
    DiscoveryProperties.Dns dns = d.getDns();
    boolean useZk = set(zk.getConnect()) || set(zk.getPath());
    boolean useEtcd = set(etcd.getEndpoints()) || set(etcd.getPrefix());
    boolean useDns = set(dns.getName()) || set(dns.getServer());
    int count = (useZk ? 1 : 0) + (useEtcd ? 1 : 0) + (useDns ? 1 : 0);
    if (count > 1) {
      throw p.invalid("discovery", null, "two sources given", ONE);
    }
    if (useZk) {
      String servers = servers(p, "discovery.zookeeper.connect", zk.getConnect());
      return "zookeeper://" + servers + path(p, "discovery.zookeeper.path", zk.getPath(),
          "/services/orders");
    }
    if (useEtcd) {
      String servers = servers(p, "discovery.etcd.endpoints", etcd.getEndpoints());
      return "etcd://" + servers + path(p, "discovery.etcd.prefix", etcd.getPrefix(),
          "/services/orders/");
    }
    if (useDns) {
      String name = dns.getName() == null ? "" : dns.getName().trim();
      boolean srv = name.startsWith("_");
      int colon = name.lastIndexOf(':');
      if (!srv && (colon <= 0 || !name.substring(colon + 1).matches("\\d{1,5}"))) {
        throw p.invalid("discovery.dns.name", dns.getName(), "no name with a port or SRV name",
            "orders.internal:8080 or _grpc._tcp.orders.internal");
      }
      String server = set(dns.getServer()) ? dns.getServer().trim() : "";
      if (!server.matches("[\\w.\\-]*(:\\d{1,5})?")) {
        throw p.invalid("discovery.dns.server", dns.getServer(), "not host[:port]",
            "e.g. 10.0.0.53:53");
      }
      return "ballast-dns://" + server + "/" + name;
    }
    return null;
  }

  private static boolean set(String s) {
    return s != null && !s.isBlank();
  }

  private static String servers(PropertyChecks p, String property, String value) {
    String v = value == null ? "" : value.trim();
    if (!v.matches("[\\w.\\-]+:\\d{1,5}(,[\\w.\\-]+:\\d{1,5})*")) {
      throw p.invalid(property, value, v.isEmpty() ? "missing" : "not host:port[,host:port...]",
          "e.g. 10.0.0.5:2181,10.0.0.6:2181");
    }
    return v;
  }

  private static String path(PropertyChecks p, String property, String value, String example) {
    String v = value == null ? "" : value.trim();
    if (v.length() < 2 || !v.startsWith("/") || v.contains(" ")) {
      throw p.invalid(property, value, v.isEmpty() ? "missing" : "not an absolute path",
          "e.g. " + example);
    }
    return v;
  }
}
