/**
 * Non-API code of lb-grpc: the load balancer, its pickers and stream tracers, the config parser
 * and the name resolver. May change without notice.
 */
package dev.ballast.grpc.internal;
