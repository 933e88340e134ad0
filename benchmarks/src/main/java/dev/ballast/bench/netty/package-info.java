/**
 * lb-netty's costs: the client stack against a raw Netty channel (JMH, and by alternation in
 * {@code StackCostRatio}; issue 4), and the CPU of idle clients ({@code IdleClientsCpu}).
 */
package dev.ballast.bench.netty;
