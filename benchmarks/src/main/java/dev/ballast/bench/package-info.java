/** JMH benchmarks of Ballast against its baselines (nginx SWRR, gRPC-java pickers, naive builds). */
package dev.ballast.bench;
