/**
 * What a running balancer is doing, as immutable values every front end shares: {@link
 * dev.ballast.core.status.BalancerStatus} (a client's or a gRPC channel's policy), its {@link
 * dev.ballast.core.status.EndpointStatus endpoints} and its {@link
 * dev.ballast.core.status.SourceStatus source}. A status is built on request from state the
 * balancer already keeps, so picks pay nothing for it (Finagle serves the same view of its
 * balancers at {@code /admin/balancers.json}).
 *
 * <p>Arguments and return values are non-null unless a method says otherwise.
 */
package dev.ballast.core.status;
