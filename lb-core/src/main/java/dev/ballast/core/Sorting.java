package dev.ballast.core;

/**
 * Sorts ring entries (a hash and its owner's index) by hash, stably: entries of equal hash keep
 * the order they were made in, as gRPC-java's {@code Collections.sort} and glibc's merge-sorting
 * {@code qsort} (which twemproxy calls) keep them.
 */
final class Sorting {

  private Sorting() {}

  /** The sorted entries: {@code keys[i]} owned by node {@code owners[i]}. */
  static final class Sorted {
    final long[] keys;
    final int[] owners;

    Sorted(long[] keys, int[] owners) {
      this.keys = keys;
      this.owners = owners;
    }
  }

  /** Returns the first {@code size} entries sorted by key (signed), stably. */
  static Sorted byKey(long[] keys, int[] owners, int size) {
    int[] order = new int[size];
    for (int i = 0; i < size; i++) {
      order[i] = i;
    }
    int[] spare = new int[size];
    // bottom-up merge sort of the entry indices
    for (int width = 1; width < size; width *= 2) {
      for (int lo = 0; lo < size; lo += 2 * width) {
        int mid = Math.min(lo + width, size);
        int hi = Math.min(lo + 2 * width, size);
        int a = lo;
        int b = mid;
        for (int k = lo; k < hi; k++) {
          spare[k] = b >= hi || (a < mid && keys[order[a]] <= keys[order[b]])
              ? order[a++] : order[b++];
        }
      }
      int[] t = order;
      order = spare;
      spare = t;
    }
    long[] sortedKeys = new long[size];
    int[] sortedOwners = new int[size];
    for (int i = 0; i < size; i++) {
      sortedKeys[i] = keys[order[i]];
      sortedOwners[i] = owners[order[i]];
    }
    return new Sorted(sortedKeys, sortedOwners);
  }
}
