package dev.ballast.core.subset.internal;

import java.util.Arrays;
import org.roaringbitmap.ArrayContainer;
import org.roaringbitmap.BitmapContainer;
import org.roaringbitmap.RoaringBitmap;

/**
 * A bitmap of slot ids below 65536 (one Roaring container) that keeps the array it was built
 * from: the sorted members when there are at most 4096 of them, else the 1024 words of a dense
 * bitmap. RoaringBitmap does not expose a container's array, and a patch that can read it makes
 * the next version in one pass of block copies ({@link #patch}) instead of one shift of the
 * whole array per changed slot. Never modified once built, like every bitmap of a published
 * state; {@link #clone()} returns a plain, independent bitmap.
 */
final class SlotBitmap extends RoaringBitmap {

  /** The most members an array container holds (Roaring's threshold). */
  static final int MAX_ARRAY = 4096;
  /** Slot ids must be below this. */
  static final int LIMIT = 1 << 16;

  private static final char[] NONE = new char[0];

  // exactly one is non-null
  private final char[] array;
  private final long[] words;
  // XOR of mix(slot) over the members: an update gets it from the slots that flip
  final long contentHash;

  /**
   * Returns the hash a member contributes to {@link #contentHash} (of every bitmap, by {@link
   * #contentHash(RoaringBitmap)}): a 64-bit mix, so that sets differing by a few members almost
   * never collide.
   */
  static long mix(int slot) {
    long z = (slot + 1) * 0x9E3779B97F4A7C15L;
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }

  /** Returns the content hash of any bitmap: kept by a slot bitmap, else computed. */
  static long contentHash(RoaringBitmap bm) {
    if (bm instanceof SlotBitmap s) {
      return s.contentHash;
    }
    long h = 0;
    org.roaringbitmap.PeekableIntIterator it = bm.getIntIterator();
    while (it.hasNext()) {
      h ^= mix(it.next());
    }
    return h;
  }

  /** Takes (does not copy) sorted, distinct members; at most {@link #MAX_ARRAY} of them. */
  SlotBitmap(char[] sorted, long contentHash) {
    this.array = sorted;
    this.words = null;
    this.contentHash = contentHash;
    if (sorted.length > 0) {
      append((char) 0, new ArrayContainer(sorted));
    }
  }

  /** Takes (does not copy) 1024 words holding {@code cardinality} members. */
  SlotBitmap(long[] words, int cardinality, long contentHash) {
    this.array = null;
    this.words = words;
    this.contentHash = contentHash;
    append((char) 0, new BitmapContainer(words, cardinality));
  }

  /** Returns a plain, independent copy (a mutated copy must not look like a slot bitmap). */
  @Override
  public RoaringBitmap clone() {
    RoaringBitmap copy = new RoaringBitmap();
    copy.or(this);
    return copy;
  }

  /**
   * Returns {@code old} with the first {@code n} ops applied ({@link PatchOps#op}: sorted by
   * slot, every slot below {@link #LIMIT}). An op that changes nothing (joining a member) is
   * skipped. Returns {@code old} itself when nothing changes, and an empty bitmap when nothing
   * is left. Costs block copies of {@code old} plus a search per op, and allocates only the
   * result.
   *
   * @param old the bitmap to patch, or {@code null} for the empty one
   * @param scratch a buffer of {@link #LIMIT} chars; its contents are lost
   */
  static RoaringBitmap patch(SlotBitmap old, int[] ops, int n, char[] scratch) {
    if (old != null && old.words != null) {
      return patchWords(old, ops, n, scratch);
    }
    char[] a = old == null ? NONE : old.array;
    int len = a.length;
    int read = 0;
    int out = 0;
    boolean changed = false;
    long hash = old == null ? 0 : old.contentHash;
    for (int i = 0; i < n; i++) {
      int slot = ops[i] >>> 1;
      int pos = search(a, read, len, slot);
      int at = pos >= 0 ? pos : -pos - 1;
      System.arraycopy(a, read, scratch, out, at - read);
      out += at - read;
      read = at;
      boolean join = (ops[i] & 1) != 0;
      if (join && pos < 0 && (out == 0 || scratch[out - 1] != slot)) {
        // (a repeated join finds the slot just written, not in the old array)
        scratch[out++] = (char) slot;
        changed = true;
        hash ^= mix(slot);
      } else if (!join && pos >= 0) {
        read++;
        changed = true;
        hash ^= mix(slot);
      }
    }
    if (!changed) {
      return old != null ? old : new RoaringBitmap();
    }
    System.arraycopy(a, read, scratch, out, len - read);
    out += len - read;
    if (out <= MAX_ARRAY) {
      return out == 0 ? new RoaringBitmap() : new SlotBitmap(Arrays.copyOf(scratch, out), hash);
    }
    long[] w = new long[LIMIT / 64];
    for (int i = 0; i < out; i++) {
      w[scratch[i] >>> 6] |= 1L << scratch[i];
    }
    return new SlotBitmap(w, out, hash);
  }

  /**
   * Finds {@code key} in {@code a[from, to)} as {@link Arrays#binarySearch} does. Slot ids are
   * spread fairly evenly, so it first probes where the key would be if they were, and binary
   * searches only the stretch between that probe and the step it takes to bracket the key.
   */
  static int search(char[] a, int from, int to, int key) {
    if (from >= to) {
      return -from - 1;
    }
    int lo = a[from];
    int hi = a[to - 1];
    if (key <= lo) {
      return key == lo ? from : -from - 1;
    }
    if (key >= hi) {
      return key == hi ? to - 1 : -to - 1;
    }
    // a[from] < key < a[to - 1]: guess by interpolation, then step out to bracket the key
    int guess = from + (int) ((long) (key - lo) * (to - 1 - from) / (hi - lo));
    int left;
    int right;
    if (a[guess] < key) {
      left = guess;
      int step = 8;
      right = guess + step;
      while (right < to - 1 && a[right] < key) {
        left = right;
        step <<= 1;
        right = left + step;
      }
      right = Math.min(right, to - 1);
    } else {
      right = guess;
      int step = 8;
      left = guess - step;
      while (left > from && a[left] > key) {
        right = left;
        step <<= 1;
        left = right - step;
      }
      left = Math.max(left, from);
    }
    // a[left] <= key <= a[right]
    return Arrays.binarySearch(a, left, right + 1, (char) key);
  }

  private static RoaringBitmap patchWords(SlotBitmap old, int[] ops, int n, char[] scratch) {
    long[] w = null;
    int card = old.getCardinality();
    long hash = old.contentHash;
    for (int i = 0; i < n; i++) {
      int slot = ops[i] >>> 1;
      boolean join = (ops[i] & 1) != 0;
      long bit = 1L << slot;
      boolean present = ((w != null ? w : old.words)[slot >>> 6] & bit) != 0;
      if (present != join) {
        if (w == null) {
          w = old.words.clone();
        }
        w[slot >>> 6] ^= bit;
        card += join ? 1 : -1;
        hash ^= mix(slot);
      }
    }
    if (w == null) {
      return old;
    }
    if (card > MAX_ARRAY) {
      return new SlotBitmap(w, card, hash);
    }
    if (card == 0) {
      return new RoaringBitmap();
    }
    int out = 0;
    for (int i = 0; i < w.length; i++) {
      for (long word = w[i]; word != 0; word &= word - 1) {
        scratch[out++] = (char) ((i << 6) + Long.numberOfTrailingZeros(word));
      }
    }
    return new SlotBitmap(Arrays.copyOf(scratch, out), hash);
  }
}
