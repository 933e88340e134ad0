/**
 * Endpoints from etcd, through jetcd: {@link dev.ballast.discovery.etcd.EtcdSource} watches the
 * keys under a prefix, {@link dev.ballast.discovery.etcd.EtcdRegistrar} registers servers as
 * keys under a lease. Targets {@code etcd://host:port[,host:port...]/prefix/}.
 *
 * <p>Arguments and return values are non-null unless a method says otherwise.
 */
package dev.ballast.discovery.etcd;
