/**
 * lb-grpc's service-provider interface for modules that extend its load balancers: a {@link
 * dev.ballast.grpc.spi.ReportFeed} (found by {@link java.util.ServiceLoader}) feeds the nodes of
 * a policy that reads load reports with what its servers report, through the {@link
 * dev.ballast.grpc.spi.ReportTarget} lb-grpc hands it (lb-grpc-orca's ORCA is one). Users of
 * lb-grpc do not need it. Not yet stable: it may change with lb-grpc's version, so use lb-grpc
 * and the modules that implement it at one version (lb-bom pins them).
 */
package dev.ballast.grpc.spi;
