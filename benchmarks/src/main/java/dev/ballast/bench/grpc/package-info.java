/**
 * JMH benchmarks of gRPC pickers: Ballast's policies against gRPC-java's own {@code round_robin}
 * and {@code least_request_experimental}, driven through their {@code LoadBalancerProvider}s
 * with a fake channel helper and READY fake subchannels.
 */
package dev.ballast.bench.grpc;
