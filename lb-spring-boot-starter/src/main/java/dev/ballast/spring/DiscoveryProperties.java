package dev.ballast.spring;

/**
 * Where a client's endpoints come from when they are not listed: one registry or DNS, under
 * {@code ballast.clients.<name>.discovery.}. At most one of the three is set; the module of
 * the registry (lb-discovery-zookeeper, lb-discovery-etcd, lb-discovery-dns) must be on the
 * class path.
 *
 * <pre>
 * ballast.clients.orders.discovery.etcd.endpoints=10.0.0.6:2379,10.0.0.7:2379
 * ballast.clients.orders.discovery.etcd.prefix=/services/orders/
 * </pre>
 */
public class DiscoveryProperties {

  /** ZooKeeper: the ephemeral children of a path. */
  private final ZooKeeper zookeeper = new ZooKeeper();

  /** etcd: the keys under a prefix. */
  private final Etcd etcd = new Etcd();

  /** DNS: A/AAAA records of a name with a port, or SRV records, re-resolved every 30 s. */
  private final Dns dns = new Dns();

  /** Returns the ZooKeeper settings. */
  public ZooKeeper getZookeeper() {
    return zookeeper;
  }

  /** Returns the etcd settings. */
  public Etcd getEtcd() {
    return etcd;
  }

  /** Returns the DNS settings. */
  public Dns getDns() {
    return dns;
  }

  /** ZooKeeper: {@code zookeeper://<connect><path>}. */
  public static class ZooKeeper {

    /** ZooKeeper servers, host:port[,host:port...]; empty: ZooKeeper is not used. */
    private String connect = "";

    /** Path whose ephemeral children are the endpoints, e.g. /services/orders. */
    private String path = "";

    /** Returns the servers; empty by default. */
    public String getConnect() {
      return connect;
    }

    /** Sets the servers. */
    public void setConnect(String connect) {
      this.connect = connect;
    }

    /** Returns the path; empty by default. */
    public String getPath() {
      return path;
    }

    /** Sets the path. */
    public void setPath(String path) {
      this.path = path;
    }
  }

  /** etcd: {@code etcd://<endpoints><prefix>}. */
  public static class Etcd {

    /** etcd servers, host:port[,host:port...] (plain HTTP); empty: etcd is not used. */
    private String endpoints = "";

    /** Key prefix whose keys are the endpoints, e.g. /services/orders/. */
    private String prefix = "";

    /** Returns the servers; empty by default. */
    public String getEndpoints() {
      return endpoints;
    }

    /** Sets the servers. */
    public void setEndpoints(String endpoints) {
      this.endpoints = endpoints;
    }

    /** Returns the prefix; empty by default. */
    public String getPrefix() {
      return prefix;
    }

    /** Sets the prefix. */
    public void setPrefix(String prefix) {
      this.prefix = prefix;
    }
  }

  /** DNS: {@code ballast-dns://[server]/<name>}. */
  public static class Dns {

    /**
     * A name with a port (orders.internal:8080: A/AAAA records) or an SRV name
     * (_grpc._tcp.orders.internal: ports and weights); empty: DNS is not used.
     */
    private String name = "";

    /** DNS server to ask, host[:port]; empty: the system's. */
    private String server = "";

    /** Returns the name; empty by default. */
    public String getName() {
      return name;
    }

    /** Sets the name. */
    public void setName(String name) {
      this.name = name;
    }

    /** Returns the server; empty by default. */
    public String getServer() {
      return server;
    }

    /** Sets the server. */
    public void setServer(String server) {
      this.server = server;
    }
  }
}
