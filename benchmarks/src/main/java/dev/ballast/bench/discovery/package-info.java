/**
 * Registry measurements: {@link dev.ballast.bench.discovery.EtcdPushLatency}, the time from an
 * etcd transaction to the state picks see, at 8000 endpoints with label subsets, and {@link
 * dev.ballast.bench.discovery.XdsPushLatency}, the same from an xDS control plane's snapshot.
 */
package dev.ballast.bench.discovery;
