package dev.ballast.core.subset.internal;

import dev.ballast.core.Balancer;
import dev.ballast.core.Node;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.function.Supplier;
import org.roaringbitmap.RoaringBitmap;

/**
 * Gives equal bitmaps one shared {@link Subset} (so one child balancer) while a state is built:
 * by identity first, then by a cheap signature and content. Not thread-safe; one per build.
 *
 * @param <T> the thing being balanced
 */
final class Canon<T> {
  private final Node<T>[] bySlot;
  private final IdentityHashMap<RoaringBitmap, Subset<T>> byIdentity = new IdentityHashMap<>();
  private final HashMap<BitmapKey, Subset<T>> byContent = new HashMap<>();

  private final Supplier<? extends Balancer<T>> factory;

  Canon(Node<T>[] bySlot, Supplier<? extends Balancer<T>> factory) {
    this.bySlot = bySlot;
    this.factory = factory;
  }

  /** Registers an existing subset so that equal new bitmaps reuse it. */
  void keep(Subset<T> s) {
    if (s != null && byIdentity.putIfAbsent(s.members(), s) == null) {
      byContent.putIfAbsent(new BitmapKey(s.members()), s);
    }
  }

  Subset<T> of(RoaringBitmap bm) {
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

  /** A bitmap keyed by a cheap signature (size, first, last), then by content. */
  private static final class BitmapKey {
    final RoaringBitmap bm;
    final int hash;

    BitmapKey(RoaringBitmap bm) {
      this.bm = bm;
      int card = bm.getCardinality();
      this.hash = card == 0 ? 0 : (card * 31 + bm.first()) * 31 + bm.last();
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof BitmapKey && ((BitmapKey) o).hash == hash
          && (((BitmapKey) o).bm == bm || ((BitmapKey) o).bm.equals(bm));
    }

    @Override
    public int hashCode() {
      return hash;
    }
  }
}
