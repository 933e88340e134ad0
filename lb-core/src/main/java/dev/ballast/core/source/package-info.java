/**
 * Endpoints that come from somewhere else: a registry, DNS, a file. An {@link
 * dev.ballast.core.source.EndpointSource} pushes a service's entries (whole sets or changes);
 * an {@link dev.ballast.core.source.EndpointFeed} validates them one by one and applies them to
 * a balancer, a subset selector or a client ({@link dev.ballast.core.source.EndpointSink}),
 * coalescing bursts and keeping the last good set while the source is down. Servers announce
 * themselves through a {@link dev.ballast.core.source.Registrar}.
 *
 * <p>Sources are found by the scheme of a target URI ({@link
 * dev.ballast.core.source.EndpointSourceProvider}): {@code zookeeper://}, {@code etcd://} and
 * {@code ballast-dns://} come with the lb-discovery modules.
 *
 * <p>Arguments and return values are non-null unless a method says otherwise.
 */
package dev.ballast.core.source;
