/**
 * Non-API internals of {@link dev.ballast.core.subset.SubsetSelector}: the inverted index
 * ({@code key=value -> RoaringBitmap} of slot ids), the per-selector subset tables, the
 * immutable state that picks read, and the incremental updater. May change without notice.
 */
package dev.ballast.core.subset.internal;
