package dev.ballast.examples;

import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;

/** gRPC channels that follow a registry: the servers registered under /services/orders. */
public final class GrpcRegistryExample {

  /** Follows ZooKeeper ("10.0.0.5:2181,10.0.0.6:2181"); needs lb-discovery-zookeeper. */
  public static ManagedChannel fromZooKeeper(String zooKeeper) {
    return ManagedChannelBuilder.forTarget("zookeeper://" + zooKeeper + "/services/orders")
        .defaultLoadBalancingPolicy("p2c_peak_ewma")
        .usePlaintext()
        .build();
  }

  /** Follows the keys under an etcd prefix ("10.0.0.7:2379"); needs lb-discovery-etcd. */
  public static ManagedChannel fromEtcd(String etcd) {
    return ManagedChannelBuilder.forTarget("etcd://" + etcd + "/services/orders/")
        .defaultLoadBalancingPolicy("p2c_peak_ewma")
        .usePlaintext()
        .build();
  }

  private GrpcRegistryExample() {}
}
