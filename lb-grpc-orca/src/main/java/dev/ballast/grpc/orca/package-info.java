/**
 * Server-reported load for gRPC-java: the policies {@code ballast_weighted_round_robin} ({@link
 * dev.ballast.grpc.orca.BallastWeightedRoundRobinLoadBalancerProvider}, gRFC A58's weights on
 * lb-core's {@link dev.ballast.core.loadaware.WeightedRoundRobin}) and {@code p2c_utilization} ({@link
 * dev.ballast.grpc.orca.P2cUtilizationLoadBalancerProvider}), fed by ORCA reports (gRFC A51)
 * read through grpc-xds's {@code io.grpc.xds.orca}; and {@link
 * dev.ballast.grpc.orca.ServerLoadReporting}, which makes a gRPC server report its CPU
 * utilization, qps and eps in one line.
 */
package dev.ballast.grpc.orca;
