/**
 * gRPC-java load-balancing policies and a name resolver over Ballast's lb-core.
 *
 * <p>Policies (registered through {@code META-INF/services/io.grpc.LoadBalancerProvider}, so a
 * channel selects them by name with {@code defaultLoadBalancingPolicy(...)} or a service config):
 * {@code vnswrr}, {@code swrr}, {@code weighted_random}, {@code least_loaded}, {@code
 * p2c_peak_ewma} and {@code aperture}, each wrapping the lb-core algorithm of the same name;
 * {@code label_subset}, lb-core's subset selector over a child policy;
 * and the policies that pick by a call's key, {@code ring_hash} (gRPC's ring hash under
 * a name of its own), {@code ketama} and {@code maglev} ({@link
 * dev.ballast.grpc.HashLoadBalancerProvider}).
 *
 * <p>The {@code ballast} name resolver takes lb-core's textual endpoint form ({@code
 * ballast:///10.0.0.1:443;weight=3;zone=a,10.0.0.2:443}) or a name published in an {@link
 * dev.ballast.grpc.EndpointRegistry} ({@code ballast://orders}). Weights and labels travel to the
 * policies as {@link dev.ballast.grpc.EndpointAttributes} on each {@code EquivalentAddressGroup},
 * so any resolver can supply them.
 *
 * <p>With Micrometer on the class path, every channel's policy reports meters under {@code
 * ballast.grpc.} (pending calls and peak-EWMA RTT per endpoint, subchannels by state, picks that
 * waited or failed; tagged {@code target} and {@code policy}) to Micrometer's global registry,
 * {@code Metrics.globalRegistry}, to which Spring Boot adds its registries. A pick that gets a
 * subchannel adds nothing to a meter. The count of picks per endpoint, {@code
 * ballast.grpc.picks}, is off by default: the system property {@code
 * ballast.grpc.metrics.endpointPicks=true} turns it on for the policies that start after it is
 * set (a channel's policy starts again when the channel leaves idle), at one {@code LongAdder}
 * increment a pick; a value other than {@code true} or {@code false} leaves it off and logs a
 * warning naming the property and the value.
 *
 * <p>Arguments and return values are non-null unless a method says otherwise.
 */
package dev.ballast.grpc;
