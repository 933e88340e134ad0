/**
 * The live demo ({@code ./ballast demo}): Linkerd's "Beyond Round Robin" experiment, time-scaled,
 * on real Netty servers on 127.0.0.1 called through the lb-netty client stack, one run per
 * balancer, then the same table and chart as the simulator. {@link dev.ballast.demo.Demo} is the
 * entry point.
 */
package dev.ballast.demo;
