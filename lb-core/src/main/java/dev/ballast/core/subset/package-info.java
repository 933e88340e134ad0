/**
 * Label-routed subsets: {@link dev.ballast.core.subset.SubsetSelector} sends each request to the
 * endpoints whose labels match the request's {@link dev.ballast.core.subset.RequestLabels},
 * through a child balancer per subset, with Envoy's {@link dev.ballast.core.subset.FallbackPolicy
 * fallback policies}.
 *
 * <p>How (MOSN's inverted index): every address keeps a slot, and an index maps each {@code
 * key=value} to the {@link java.util.BitSet} of slots having it. A subset's members are the AND
 * of its values' sets; equal member sets share one subset and one child balancer, found by
 * content in a hash map. Every update, full or delta, patches the index (each set a changed
 * endpoint leaves or joins is copied and its bit flipped), then makes the subsets: all of them
 * (the first update, or above the rebuild threshold), key prefix by key prefix with prefixes
 * shared between selectors, or only those a changed endpoint leaves, joins or is reweighted in.
 * A member set that did not change keeps its subset and child balancer; every new one is checked
 * by the child balancers' algorithm before the update makes anything else. A child balancer is
 * made on its subset's first pick, from nodes and weights the selector already validated.
 *
 * <p>Why plain bitsets, not RoaringBitmap: below 65,536 slots every Roaring set is one container,
 * and an AND of two sets of a third of 8000 slots took 36.9 us with Roaring against 1.0 us with
 * {@code BitSet} (JMH {@code IntersectionBenchmark}, load average 21, 2 cores). Roaring won only
 * for sparse sets over many slots (100 of 100,000 slots: 1.0 against 10.1 us), which here are
 * only label sets resolved with redundant keys, each computed once per update and cached.
 *
 * <p>Arguments and return values are non-null unless a method says otherwise.
 */
package dev.ballast.core.subset;
