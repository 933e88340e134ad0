/**
 * Label-routed subsets: {@link dev.ballast.core.subset.SubsetSelector} sends each request to the
 * endpoints whose labels match the request's {@link dev.ballast.core.subset.RequestLabels},
 * through a child balancer per subset, with Envoy's {@link dev.ballast.core.subset.FallbackPolicy
 * fallback policies}.
 *
 * <p>How (MOSN's inverted index): every address keeps a slot, and an index maps each {@code
 * key=value} to the {@link java.util.BitSet} of slots having it; a subset's members are the AND
 * of its values' sets, and equal member sets share one subset and child balancer, found by
 * content in a hash map. Every update patches the index (a set a changed endpoint leaves or joins
 * is copied, its bit flipped), then makes all subsets (first update, or above the rebuild
 * threshold: key prefix by key prefix, prefixes shared between selectors) or only those a changed
 * endpoint leaves, joins or is reweighted in. An unchanged member set keeps its subset and child;
 * each new one is checked by the child balancers' algorithm before the update makes anything.
 * Children are made on first pick, from nodes and weights the selector validated already.
 *
 * <p>Plain bitsets, not RoaringBitmap: below 65,536 slots every Roaring set is one container, and
 * an AND of two sets of a third of 8000 slots took 36.9 us with Roaring and 1.0 us as {@code
 * BitSet} (JMH {@code IntersectionBenchmark}, load average 21, 2 cores). Roaring won only on
 * sparse sets over many slots (100 of 100,000: 1.0 against 10.1 us), which here are only label
 * sets resolved with redundant keys, each computed once per update and cached.
 *
 * <p>Arguments and return values are non-null unless a method says otherwise.
 */
package dev.ballast.core.subset;
