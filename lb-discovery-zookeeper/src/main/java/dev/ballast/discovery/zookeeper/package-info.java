/**
 * Endpoints from ZooKeeper, through Apache Curator: {@link
 * dev.ballast.discovery.zookeeper.ZooKeeperSource} watches a service's ephemeral nodes, {@link
 * dev.ballast.discovery.zookeeper.ZooKeeperRegistrar} registers servers as such nodes. Targets
 * {@code zookeeper://host:port[,host:port...]/base/service}.
 *
 * <p>Arguments and return values are non-null unless a method says otherwise.
 */
package dev.ballast.discovery.zookeeper;
