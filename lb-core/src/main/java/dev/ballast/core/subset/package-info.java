/**
 * Label-routed subsets: {@link dev.ballast.core.subset.SubsetSelector} sends each request to the
 * endpoints whose labels match the request's {@link dev.ballast.core.subset.RequestLabels},
 * through a child balancer per subset, with Envoy's {@link
 * dev.ballast.core.subset.FallbackPolicy fallback policies}. Subsets are built on an inverted
 * index of RoaringBitmaps and updated incrementally.
 *
 * <p>Arguments and return values are non-null unless a method says otherwise.
 */
package dev.ballast.core.subset;
