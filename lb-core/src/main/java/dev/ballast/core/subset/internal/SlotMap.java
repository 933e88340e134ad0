package dev.ballast.core.subset.internal;

/**
 * String to int (an address to its slot id, a label value to its value id), open addressing
 * with linear probing: no boxed integers and no entry objects, so a build of thousands of
 * endpoints allocates three arrays instead of an entry per endpoint. Homes are the top bits of
 * the mixed hash (Fibonacci hashing), kept beside each key. Not thread-safe.
 */
final class SlotMap {

  static final int ABSENT = Integer.MIN_VALUE;

  private String[] keys = new String[16];
  // each key's mixed hash beside it, so that a probe compares no string whose hash differs,
  // and moving an entry reads no string
  private int[] hashes = new int[16];
  private int[] values = new int[16];
  // the home of a mixed hash is its top bits (Fibonacci hashing): capacity 2^(32 - shift)
  private int shift = 32 - 4;
  private int size;

  int size() {
    return size;
  }

  /** Returns the value of the key, or {@link #ABSENT}. */
  int get(String key) {
    int mask = keys.length - 1;
    int h = mix(key.hashCode());
    for (int i = h >>> shift; ; i = (i + 1) & mask) {
      String k = keys[i];
      if (k == null) {
        return ABSENT;
      }
      if (k == key || hashes[i] == h && k.equals(key)) {
        return values[i];
      }
    }
  }

  /** Sets the value of the key. */
  void put(String key, int value) {
    int i = place(key);
    if (keys[i] == null) {
      keys[i] = key;
      hashes[i] = mix(key.hashCode());
      size++;
    }
    values[i] = value;
  }

  /**
   * Returns the value of the key if it has one; else gives it {@code value} and returns {@link
   * #ABSENT}. One probe sequence where a {@link #get} then a {@link #put} take two.
   */
  int putIfAbsent(String key, int value) {
    int i = place(key);
    if (keys[i] != null) {
      return values[i];
    }
    keys[i] = key;
    hashes[i] = mix(key.hashCode());
    values[i] = value;
    size++;
    return ABSENT;
  }

  /** Returns where the key is, or the free place it would take (making room first). */
  private int place(String key) {
    if ((size + 1) * 2 > keys.length) {
      grow();
    }
    int mask = keys.length - 1;
    int h = mix(key.hashCode());
    for (int i = h >>> shift; ; i = (i + 1) & mask) {
      String k = keys[i];
      if (k == null || k == key || hashes[i] == h && k.equals(key)) {
        return i;
      }
    }
  }

  /** Makes room for {@code entries} keys in all, so that adding up to that many never grows. */
  void ensureCapacity(int entries) {
    if (entries * 2L > keys.length) {
      int cap = Integer.highestOneBit(Math.max(16, entries * 2 - 1)) << 1;
      String[] oldKeys = keys;
      int[] oldHashes = hashes;
      int[] oldValues = values;
      keys = new String[cap];
      hashes = new int[cap];
      values = new int[cap];
      shift = 32 - Integer.numberOfTrailingZeros(cap);
      int mask = cap - 1;
      for (int j = 0; j < oldKeys.length; j++) {
        if (oldKeys[j] != null) {
          int i = oldHashes[j] >>> shift;
          while (keys[i] != null) {
            i = (i + 1) & mask;
          }
          keys[i] = oldKeys[j];
          hashes[i] = oldHashes[j];
          values[i] = oldValues[j];
        }
      }
    }
  }

  /** Removes the key if present (backward-shift deletion keeps probe chains intact). */
  void remove(String key) {
    int mask = keys.length - 1;
    int h = mix(key.hashCode());
    int i = h >>> shift;
    for (; ; i = (i + 1) & mask) {
      String k = keys[i];
      if (k == null) {
        return;
      }
      if (k == key || hashes[i] == h && k.equals(key)) {
        break;
      }
    }
    size--;
    int hole = i;
    for (int j = (hole + 1) & mask; keys[j] != null; j = (j + 1) & mask) {
      if (!staysAfterHole(hashes[j] >>> shift, hole, j)) {
        keys[hole] = keys[j];
        hashes[hole] = hashes[j];
        values[hole] = values[j];
        hole = j;
      }
    }
    keys[hole] = null;
  }

  /**
   * Backward-shift deletion in linear probing: whether the entry at {@code j}, whose home is
   * {@code home}, stays where it is after the slot {@code hole} is emptied (its home lies in
   * the cyclic range (hole, j]); else it moves into the hole.
   */
  static boolean staysAfterHole(int home, int hole, int j) {
    return hole <= j ? (home > hole && home <= j) : (home > hole || home <= j);
  }

  private void grow() {
    ensureCapacity(keys.length);
  }

  private static int mix(int h) {
    return (h ^ (h >>> 16)) * 0x9E3779B1;
  }
}
