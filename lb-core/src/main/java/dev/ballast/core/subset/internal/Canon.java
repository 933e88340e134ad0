package dev.ballast.core.subset.internal;

import dev.ballast.core.Balancer;
import dev.ballast.core.Node;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.function.Supplier;
import org.roaringbitmap.RoaringBitmap;

/**
 * Gives equal bitmaps one shared {@link Subset} (so one child balancer): by identity first, then
 * by size, content hash and content. Kept by the updater across incremental updates, counting
 * how many places (selector table entries, the all-endpoints and default subsets) use each
 * subset, so that an update registers only the subsets it makes and forgets only those it
 * drops; a full build starts a new one. Not thread-safe.
 *
 * @param <T> the thing being balanced
 */
final class Canon<T> {
  private final IdentityHashMap<RoaringBitmap, Subset<T>> byIdentity = new IdentityHashMap<>();
  private final HashMap<BitmapKey, Subset<T>> byContent = new HashMap<>();
  private final Supplier<? extends Balancer<T>> factory;

  Canon(Supplier<? extends Balancer<T>> factory) {
    this.factory = factory;
  }

  /** Returns the subset with these members, made (over {@code bySlot}) if there is none. */
  Subset<T> of(RoaringBitmap bm, Node<T>[] bySlot) {
    Subset<T> s = byIdentity.get(bm);
    if (s != null) {
      return s;
    }
    BitmapKey key = new BitmapKey(bm);
    s = byContent.get(key);
    if (s == null) {
      s = new Subset<>(bm, bySlot, factory);
      byContent.put(key, s);
    }
    byIdentity.put(bm, s);
    return s;
  }

  /** Counts one more use of the subset ({@code null} is ignored). */
  void acquire(Subset<T> s) {
    if (s != null) {
      s.refs++;
    }
  }

  /** Counts one use less; a subset no longer used is forgotten. */
  void release(Subset<T> s) {
    if (s != null && --s.refs == 0) {
      retire(s);
    }
  }

  /**
   * Forgets the subset, so that its members get a new subset (with a new child balancer) from
   * now on: used when a member's weight changes, which the old child balancer would not see.
   */
  void retire(Subset<T> s) {
    if (s == null) {
      return;
    }
    RoaringBitmap bm = s.members();
    if (byIdentity.get(bm) == s) {
      byIdentity.remove(bm);
    }
    BitmapKey key = new BitmapKey(bm);
    if (byContent.get(key) == s) {
      byContent.remove(key);
    }
  }

  /**
   * A bitmap keyed by its size and 64-bit content hash ({@link SlotBitmap#contentHash}, which a
   * patch updates from the slots that flip), then by content.
   */
  private static final class BitmapKey {
    final RoaringBitmap bm;
    final int card;
    final long contentHash;

    BitmapKey(RoaringBitmap bm) {
      this.bm = bm;
      this.card = bm.getCardinality();
      this.contentHash = SlotBitmap.contentHash(bm);
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof BitmapKey k && k.contentHash == contentHash && k.card == card
          && (k.bm == bm || k.bm.equals(bm));
    }

    @Override
    public int hashCode() {
      return Long.hashCode(contentHash) * 31 + card;
    }
  }
}
