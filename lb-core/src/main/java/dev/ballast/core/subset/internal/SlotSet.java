package dev.ballast.core.subset.internal;

import java.util.Arrays;
import org.roaringbitmap.PeekableIntIterator;
import org.roaringbitmap.RoaringBitmap;

/**
 * The members of a subset: an immutable set of slot ids, in whichever form is smaller for the
 * slot range it was made for. Sparse sets are sorted ints (4 bytes a member); dense ones are a
 * bitset of one bit per slot up to the range, so a set of 8000 slots costs 1000 bytes however
 * many members it has. (A Roaring bitmap's dense form always spans 65536 slots, 8 KiB: copying
 * that for every subset an update touches would cost more than the subset.)
 *
 * <p>An incremental update makes the next version with {@link #patch}: a dense set is one array
 * copy plus a bit flip per changed slot, with no search; a sparse one is block copies between
 * the changed slots. The content hash ({@link #hash}, the XOR of {@link #mix} over the
 * members) is carried along from the slots that flip, so that equal sets are found without
 * reading them. Equality is by content, whatever the forms.
 *
 * <p>An incremental update does not make the member sets of the subsets it touches: such a
 * subset knows its size and hash, and its members are the AND ({@link #andKnown}) of a few
 * patched key=value sets of the index, computed on first read (see {@link Subset}).
 */
final class SlotSet {

  static final SlotSet EMPTY = new SlotSet(new int[0], null, 0, 0);

  // exactly one is non-null
  private final int[] array;
  private final long[] words;
  private final int size;
  /** XOR of {@link #mix} over the members. */
  final long hash;
  // the Roaring view, made on first use (a benign race may make it twice)
  private volatile RoaringBitmap roaring;

  private SlotSet(int[] array, long[] words, int size, long hash) {
    this.array = array;
    this.words = words;
    this.size = size;
    this.hash = hash;
  }

  /**
   * Returns the slots in every one of {@code sets} (at least one), in the
   * smaller form for slots below {@code limit}: the smallest set's members tested against the
   * others when it is sparse, else a word-by-word AND. The result's hash is computed from its
   * members.
   */
  static SlotSet and(SlotSet[] sets, int limit) {
    return and(sets, limit, 0, false);
  }

  /**
   * {@link #and} of the first {@code n} sets, whose result has the given hash (not computed from
   * the members; the caller knows it).
   */
  static SlotSet andKnown(SlotSet[] sets, int n, int limit, long hash) {
    return and(sets.length == n ? sets : Arrays.copyOf(sets, n), limit, hash, true);
  }

  private static SlotSet and(SlotSet[] sets, int limit, long hash, boolean known) {
    SlotSet smallest = sets[0];
    for (SlotSet s : sets) {
      if (s.size < smallest.size) {
        smallest = s;
      }
    }
    if (smallest.size == 0) {
      return EMPTY;
    }
    int[] out;
    int n = 0;
    if (smallest.array != null) {
      out = new int[smallest.size];
      for (int slot : smallest.array) {
        boolean all = true;
        for (SlotSet s : sets) {
          if (s != smallest && !s.contains(slot)) {
            all = false;
            break;
          }
        }
        if (all) {
          out[n++] = slot;
        }
      }
    } else {
      long[] w = smallest.words.clone();
      for (SlotSet s : sets) {
        if (s != smallest) {
          s.andInto(w);
        }
      }
      for (long word : w) {
        n += Long.bitCount(word);
      }
      if (n >= w.length) {
        return new SlotSet(null, w, n, known ? hash : hashOf(w));
      }
      out = new int[n];
      membersOf(w, out);
    }
    if (n == 0) {
      return EMPTY;
    }
    long h = 0;
    if (known) {
      h = hash;
    } else {
      for (int i = 0; i < n; i++) {
        h ^= mix(out[i]);
      }
    }
    int range = Math.max(limit, out[n - 1] + 1);
    if (!dense(n, range)) {
      return new SlotSet(n == out.length ? out : Arrays.copyOf(out, n), null, n, h);
    }
    long[] w = new long[wordsFor(range)];
    for (int i = 0; i < n; i++) {
      w[out[i] >>> 6] |= 1L << out[i];
    }
    return new SlotSet(null, w, n, h);
  }

  /** Clears the bits of {@code w} that are not members. */
  private void andInto(long[] w) {
    if (words != null) {
      for (int i = 0; i < w.length; i++) {
        w[i] &= i < words.length ? words[i] : 0;
      }
      return;
    }
    long[] mask = new long[w.length];
    for (int slot : array) {
      if (slot >>> 6 < mask.length) {
        mask[slot >>> 6] |= 1L << slot;
      }
    }
    for (int i = 0; i < w.length; i++) {
      w[i] &= mask[i];
    }
  }

  /** Returns the XOR of {@link #mix} over the set bits. */
  private static long hashOf(long[] w) {
    long h = 0;
    for (int i = 0; i < w.length; i++) {
      for (long x = w[i]; x != 0; x &= x - 1) {
        h ^= mix((i << 6) + Long.numberOfTrailingZeros(x));
      }
    }
    return h;
  }

  /**
   * Returns the hash a member contributes to {@link #hash}: a 64-bit mix (SplitMix64's
   * finalizer), so that sets differing by a few members almost never collide.
   */
  static long mix(int slot) {
    long z = (slot + 1) * 0x9E3779B97F4A7C15L;
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }

  /** Returns how many 64-bit words hold slots below {@code limit}. */
  static int wordsFor(int limit) {
    return (limit + 63) >>> 6;
  }

  /** Returns whether a set of {@code size} slots below {@code limit} is smaller as a bitset. */
  static boolean dense(int size, int limit) {
    return size >= 2 * wordsFor(limit);
  }

  /** Returns the set of a bitmap's members, all below {@code limit}. */
  static SlotSet of(RoaringBitmap bm, int limit) {
    int n = bm.getCardinality();
    if (n == 0) {
      return EMPTY;
    }
    Builder b = new Builder(n, limit);
    PeekableIntIterator it = bm.getIntIterator();
    while (it.hasNext()) {
      b.add(it.next());
    }
    return b.build();
  }

  /** Returns how many members there are. */
  int size() {
    return size;
  }

  /** Returns whether the set is empty. */
  boolean isEmpty() {
    return size == 0;
  }

  /**
   * Returns a copy of a bitset's words ({@link #isDense}), at least {@link #wordsFor}({@code
   * limit}) long.
   */
  long[] wordsCopy(int limit) {
    long[] w = words;
    return Arrays.copyOf(w, Math.max(w.length, wordsFor(limit)));
  }

  /**
   * Returns the set of the set bits of {@code w} (taken, not copied), of which there are {@code
   * size}, with the given hash: a bitset, or sorted ints once that is less than half the size
   * (as {@link #patch} does).
   */
  static SlotSet ofWords(long[] w, int size, long hash) {
    if (size == 0) {
      return EMPTY;
    }
    if (size >= w.length) {
      return new SlotSet(null, w, size, hash);
    }
    int[] a = new int[size];
    membersOf(w, a);
    return new SlotSet(a, null, size, hash);
  }

  /** Returns whether the set is a bitset (else sorted ints). */
  boolean isDense() {
    return words != null;
  }

  /**
   * Returns the members as a RoaringBitmap, for intersections with Roaring's {@code and}: made
   * on first use (one pass over the members) and kept. Never modify it.
   */
  RoaringBitmap roaring() {
    RoaringBitmap r = roaring;
    if (r == null) {
      if (size == 0) {
        r = new RoaringBitmap();
      } else {
        r = new RoaringBitmap();
        r.addN(toArray(), 0, size);
      }
      roaring = r;
    }
    return r;
  }

  /** Returns whether the slot is a member. */
  boolean contains(int slot) {
    if (words != null) {
      int w = slot >>> 6;
      return slot >= 0 && w < words.length && (words[w] & (1L << slot)) != 0;
    }
    return Arrays.binarySearch(array, slot) >= 0;
  }

  /**
   * Writes the members, ascending, into {@code out} (at least {@link #size()} long) and returns
   * their count.
   */
  int copyTo(int[] out) {
    if (array != null) {
      System.arraycopy(array, 0, out, 0, size);
      return size;
    }
    return membersOf(words, out);
  }

  /** Writes the set bits of {@code words}, ascending, into {@code out}; returns their count. */
  private static int membersOf(long[] words, int[] out) {
    int n = 0;
    for (int i = 0; i < words.length; i++) {
      for (long w = words[i]; w != 0; w &= w - 1) {
        out[n++] = (i << 6) + Long.numberOfTrailingZeros(w);
      }
    }
    return n;
  }

  /** Returns the members, ascending. */
  int[] toArray() {
    if (array != null) {
      return array.clone();
    }
    int[] out = new int[size];
    copyTo(out);
    return out;
  }

  /**
   * Returns {@code old} with the first {@code n} ops applied ({@link PatchOps#op}: sorted by
   * slot, a leave before a join of one slot; a dense set ({@link #isDense}) takes ops in any
   * order when no slot has two). An op that changes nothing (a member joining, a
   * non-member leaving) is skipped. Returns {@code old} itself when nothing changes and {@link
   * #EMPTY} when nothing is left. The result takes the smaller form for slots below {@code
   * limit}, except that a bitset stays one until it is twice the size of the sorted ints (so that
   * a set near the line does not flip form on every update).
   *
   * @param old the set to patch, or {@code null} for the empty one
   * @param limit every slot of the result is below this
   * @param scratch at least {@code old.size() + n} ints (used for sorted ints); its contents
   *     are lost
   */
  static SlotSet patch(SlotSet old, int[] ops, int n, int limit, int[] scratch) {
    if (old == null) {
      old = EMPTY;
    }
    return old.words != null ? old.patchWords(ops, n, limit)
        : old.patchArray(ops, n, limit, scratch);
  }

  private SlotSet patchWords(int[] ops, int n, int limit) {
    long[] w = null;
    int card = size;
    long h = hash;
    for (int i = 0; i < n; i++) {
      int slot = ops[i] >>> 1;
      boolean join = (ops[i] & 1) != 0;
      int at = slot >>> 6;
      long bit = 1L << slot;
      long[] cur = w != null ? w : words;
      boolean present = at < cur.length && (cur[at] & bit) != 0;
      if (present != join) {
        if (w == null) {
          w = Arrays.copyOf(words, Math.max(words.length, wordsFor(limit)));
        }
        if (at >= w.length) {
          w = Arrays.copyOf(w, at + 1);
        }
        w[at] ^= bit;
        card += join ? 1 : -1;
        h ^= mix(slot);
      }
    }
    return w == null ? this : ofWords(w, card, h);
  }

  private SlotSet patchArray(int[] ops, int n, int limit, int[] scratch) {
    int[] a = array;
    int len = size;
    int read = 0;
    int out = 0;
    boolean changed = false;
    long h = hash;
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
        scratch[out++] = slot;
        changed = true;
        h ^= mix(slot);
      } else if (!join && pos >= 0) {
        read++;
        changed = true;
        h ^= mix(slot);
      }
    }
    if (!changed) {
      return this;
    }
    System.arraycopy(a, read, scratch, out, len - read);
    out += len - read;
    if (out == 0) {
      return EMPTY;
    }
    if (!dense(out, Math.max(limit, scratch[out - 1] + 1))) {
      return new SlotSet(Arrays.copyOf(scratch, out), null, out, h);
    }
    long[] w = new long[wordsFor(Math.max(limit, scratch[out - 1] + 1))];
    for (int i = 0; i < out; i++) {
      w[scratch[i] >>> 6] |= 1L << scratch[i];
    }
    return new SlotSet(null, w, out, h);
  }

  /**
   * Finds {@code key} in {@code a[from, to)} as {@link Arrays#binarySearch} does. Slot ids are
   * spread fairly evenly, so it first probes where the key would be if they were, and binary
   * searches only the stretch between that probe and the step it takes to bracket the key.
   */
  static int search(int[] a, int from, int to, int key) {
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
    return Arrays.binarySearch(a, left, right + 1, key);
  }

  /** Equal members, whatever the forms. */
  @Override
  public boolean equals(Object o) {
    if (o == this) {
      return true;
    }
    if (!(o instanceof SlotSet s) || s.size != size || s.hash != hash) {
      return false;
    }
    if (array != null && s.array != null) {
      return Arrays.equals(array, s.array);
    }
    if (words != null && s.words != null) {
      int common = Math.min(words.length, s.words.length);
      if (!Arrays.equals(words, 0, common, s.words, 0, common)) {
        return false;
      }
      // sizes are equal, so the longer one has no members past the common words
      return true;
    }
    SlotSet sparse = array != null ? this : s;
    SlotSet other = sparse == this ? s : this;
    for (int slot : sparse.array) {
      if (!other.contains(slot)) {
        return false;
      }
    }
    return true;
  }

  @Override
  public int hashCode() {
    return Long.hashCode(hash) * 31 + size;
  }

  @Override
  public String toString() {
    return Arrays.toString(toArray());
  }

  /**
   * Makes a set from ascending slots whose count is known in advance, allocating only the
   * result, in the smaller form for slots below the limit.
   */
  static final class Builder {
    private final int expected;
    private final int[] array;
    private final long[] words;
    private int n;
    private long h;

    /**
     * @param expected how many slots will be added
     * @param limit every slot added is below this
     */
    Builder(int expected, int limit) {
      this.expected = expected;
      if (dense(expected, limit)) {
        array = null;
        words = new long[wordsFor(limit)];
      } else {
        array = new int[expected];
        words = null;
      }
    }

    /** Adds a slot larger than every slot added before. */
    void add(int slot) {
      if (array != null) {
        array[n] = slot;
      } else {
        words[slot >>> 6] |= 1L << slot;
      }
      h ^= mix(slot);
      n++;
    }

    /** Returns the set; call once, after exactly the expected number of adds. */
    SlotSet build() {
      if (n != expected) {
        throw new IllegalStateException("added " + n + " slots (expected: " + expected + ")");
      }
      return n == 0 ? EMPTY : new SlotSet(array, words, n, h);
    }
  }
}
