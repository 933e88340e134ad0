/**
 * Endpoints from an xDS control plane (Istio, Traffic Director, a control plane on Envoy's
 * java-control-plane or go-control-plane): {@link dev.ballast.discovery.xds.XdsSource} follows a
 * cluster's EDS resource over an ADS stream, State of the World; {@link
 * dev.ballast.discovery.xds.XdsBootstrap} reads gRPC's bootstrap. Targets {@code xds:///cluster}
 * and {@code xds://host:port/cluster}.
 *
 * <p>Arguments and return values are non-null unless a method says otherwise.
 */
package dev.ballast.discovery.xds;
