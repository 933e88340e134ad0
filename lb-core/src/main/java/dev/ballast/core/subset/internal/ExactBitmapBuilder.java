package dev.ballast.core.subset.internal;

import org.roaringbitmap.RoaringBitmap;
import org.roaringbitmap.RoaringBitmapWriter;

/**
 * Builds a bitmap from ascending slot ids whose count is known in advance, allocating only the
 * result. When every slot is below 65536 (one Roaring container) the container is made at its
 * exact size and handed over without a copy, as a {@link SlotBitmap} (so that a later patch
 * can read it): an array of {@code count} chars, or a 1024-word bitmap above 4096 values.
 * Beyond that it falls back to RoaringBitmap's writer, which over-allocates (it sizes its
 * buffers for a guess and makes a spare container after each flush).
 */
final class ExactBitmapBuilder {

  private static final int MAX_ARRAY = 4096;

  private final int expected;
  private final char[] array;
  private final long[] words;
  private final RoaringBitmapWriter<RoaringBitmap> writer;
  private int size;
  private long hash;

  /**
   * @param expected how many values will be added, at least 1
   * @param limit every value added is below this
   */
  ExactBitmapBuilder(int expected, int limit) {
    this.expected = expected;
    if (limit <= 65536) {
      writer = null;
      if (expected <= MAX_ARRAY) {
        array = new char[expected];
        words = null;
      } else {
        array = null;
        words = new long[1024];
      }
    } else {
      array = null;
      words = null;
      writer = RoaringBitmapWriter.writer().runCompress(false).get();
    }
  }

  /** Adds a value larger than every value added before. */
  void add(int value) {
    if (array != null) {
      hash ^= SlotBitmap.mix(value);
      array[size] = (char) value;
    } else if (words != null) {
      hash ^= SlotBitmap.mix(value);
      words[value >>> 6] |= 1L << value;
    } else {
      writer.add(value);
    }
    size++;
  }

  /** Returns the bitmap; call once, after exactly the expected number of adds. */
  RoaringBitmap get() {
    if (writer != null) {
      return writer.get();
    }
    if (size != expected) {
      throw new IllegalStateException("added " + size + " values (expected: " + expected + ")");
    }
    if (size == 0) {
      return new RoaringBitmap();
    }
    return array != null ? new SlotBitmap(array, hash) : new SlotBitmap(words, size, hash);
  }
}
