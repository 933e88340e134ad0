/**
 * Key-hashing benchmarks: a pick by hash and by key for ring hash, ketama and Maglev at 10 to
 * 1000 endpoints, and the cost of building each one's ring or table. Run with {@code ./ballast
 * bench HashBenchmark -prof gc}.
 */
package dev.ballast.bench.hash;
