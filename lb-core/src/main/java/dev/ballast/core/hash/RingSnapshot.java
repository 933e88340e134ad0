package dev.ballast.core.hash;

import dev.ballast.core.BalancerConfig;
import dev.ballast.core.Node;
import java.util.concurrent.atomic.LongAdder;

/**
 * A ring of points sorted by value, each owned by a node: ring hash's entries and ketama's
 * continuum. A hash goes to the first point at or above it; past the last point, ketama wraps to
 * the first and gRPC-java's ring hash stays on the last.
 */
final class RingSnapshot<T> extends HashSnapshot<T> {

  private final long[] points;
  private final int[] owners;
  private final long hashMask;
  private final boolean wrap;

  /**
   * Sorts the first {@code size} points (signed) with their owners, stably: points of equal
   * value keep the order they were made in, as gRPC-java's {@code Collections.sort} and glibc's
   * merge-sorting {@code qsort} (which twemproxy calls) keep them.
   *
   * @param hashMask the bits of a hash that are compared with the points
   * @param wrap whether a hash past the last point goes to the first (else to the last)
   */
  RingSnapshot(String name, Node<T>[] nodes, int[] weights, long[] points, int[] owners, int size,
      long hashMask, boolean wrap, BalancerConfig config, double loadBound, LongAdder inFlight) {
    super(name, nodes, weights, config, loadBound, inFlight);
    int[] order = new int[size];
    for (int i = 0; i < size; i++) {
      order[i] = i;
    }
    int[] spare = new int[size];
    // bottom-up merge sort of the point indices
    for (int width = 1; width < size; width *= 2) {
      for (int lo = 0; lo < size; lo += 2 * width) {
        int mid = Math.min(lo + width, size);
        int hi = Math.min(lo + 2 * width, size);
        int a = lo;
        int b = mid;
        for (int k = lo; k < hi; k++) {
          spare[k] = b >= hi || (a < mid && points[order[a]] <= points[order[b]])
              ? order[a++] : order[b++];
        }
      }
      int[] t = order;
      order = spare;
      spare = t;
    }
    this.points = new long[size];
    this.owners = new int[size];
    for (int i = 0; i < size; i++) {
      this.points[i] = points[order[i]];
      this.owners[i] = owners[order[i]];
    }
    this.hashMask = hashMask;
    this.wrap = wrap;
  }

  @Override
  protected int positions() {
    return points.length;
  }

  @Override
  protected int position(long hash) {
    long h = hash & hashMask;
    int lo = 0;
    int hi = points.length;
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (points[mid] < h) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo < points.length ? lo : wrap ? 0 : lo - 1;
  }

  @Override
  protected int owner(int position) {
    return owners[position];
  }
}
