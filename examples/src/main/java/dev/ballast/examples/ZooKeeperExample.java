package dev.ballast.examples;

import dev.ballast.core.Endpoint;
import dev.ballast.core.source.Registration;
import dev.ballast.discovery.zookeeper.ZooKeeperRegistrar;
import dev.ballast.netty.BallastClient;

/** Endpoints from ZooKeeper: servers register themselves, clients follow the service. */
public final class ZooKeeperExample {

  /** A server announces itself under /services/orders; the node goes when this process does. */
  public static ZooKeeperRegistrar announce(String zooKeeper, String address) {
    ZooKeeperRegistrar registrar = ZooKeeperRegistrar.connect(zooKeeper, "/services");
    Registration me = registrar.register("orders", Endpoint.parse(address + ";weight=3;zone=a"));
    me.update(me.endpoint().withWeight(1)); // in place: clients see a reweight, not a removal
    return registrar;                        // close it to deregister
  }

  /** A client follows the service as servers come and go ("10.0.0.5:2181,10.0.0.6:2181"). */
  public static BallastClient<byte[], byte[]> client(String zooKeeper) {
    return BallastClient.framed()
        .source("zookeeper://" + zooKeeper + "/services/orders")
        .balancer("p2c_peak_ewma")
        .build();
  }

  private ZooKeeperExample() {}
}
