/**
 * Server-reported load: {@link dev.ballast.core.load.LoadReport} (what a server says of its own
 * load, as ORCA's {@code OrcaLoadReport} and Envoy's {@code endpoint-load-metrics} header carry
 * it) and {@link dev.ballast.core.load.WeightedRoundRobinConfig}, the settings of weighted round
 * robin from reports (gRFC A58). Feed reports to a node with {@link
 * dev.ballast.core.Node#reportLoad}; the balancers that read them are {@link
 * dev.ballast.core.loadaware.WeightedRoundRobin} and {@link dev.ballast.core.loadaware.P2cUtilization}.
 */
package dev.ballast.core.load;
