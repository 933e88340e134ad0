/**
 * {@code ./ballast compare}: the demo's experiment and a healthy fleet at fixed concurrency, run
 * through Ballast's clients and the peer clients users would pick instead (Finagle, Armeria,
 * gRPC-java, Reactor Netty, Spring Cloud LoadBalancer), each in its own JVM, against the same
 * servers. {@link dev.ballast.compare.Compare} is the entry point.
 */
package dev.ballast.compare;
