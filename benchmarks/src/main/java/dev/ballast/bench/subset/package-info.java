/**
 * Label-subset benchmarks on MOSN's data set and a harder one (8000 hosts, 15 selectors, both
 * seeded): the build against MOSN's old scan of every host ({@link
 * dev.ballast.bench.subset.NaiveSubsetBuilder}), the update of 50 hosts against a full rebuild,
 * the pick, the making of a child balancer, and the AND of two sets with {@code BitSet} against
 * RoaringBitmap. Run with {@code ./ballast bench 'dev.ballast.bench.subset' -prof gc}.
 */
package dev.ballast.bench.subset;
