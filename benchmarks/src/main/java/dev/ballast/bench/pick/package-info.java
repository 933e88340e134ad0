/**
 * Pick-cost benchmarks: every lb-core algorithm at 10 to 10000 endpoints, with nginx's smooth
 * weighted round robin as the baseline in the same run. Run with {@code ./ballast bench
 * PickBenchmark -prof gc}.
 */
package dev.ballast.bench.pick;
