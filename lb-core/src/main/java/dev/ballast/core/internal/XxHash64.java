package dev.ballast.core.internal;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * XXH64, Yann Collet's 64-bit xxHash (the xxHash specification, {@code doc/xxhash_spec.md} of
 * the xxHash project): four accumulators over 32-byte stripes, then 8-, 4- and 1-byte tails and
 * an avalanche. Lanes are read little-endian, so results are the same on every platform. gRPC's
 * {@code ring_hash} (gRFC A42) and Envoy hash ring entries and request keys with it, seed 0.
 */
public final class XxHash64 {

  private static final long P1 = 0x9E3779B185EBCA87L;
  private static final long P2 = 0xC2B2AE3D27D4EB4FL;
  private static final long P3 = 0x165667B19E3779F9L;
  private static final long P4 = 0x85EBCA77C2B2AE63L;
  private static final long P5 = 0x27D4EB2F165667C5L;

  private static final VarHandle LONGS =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
  private static final VarHandle INTS =
      MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);

  private XxHash64() {}

  /** Returns the hash (seed 0) of a key's UTF-8 bytes: lb-core's key hash for picks by key. */
  public static long ofKey(CharSequence key) {
    KeyBytes k = KeyBytes.of(java.util.Objects.requireNonNull(key, "key"));
    return hash(k.bytes(), 0, k.length(), 0);
  }

  /** Returns XXH64 of {@code len} bytes of {@code b} from {@code off}, with the given seed. */
  public static long hash(byte[] b, int off, int len, long seed) {
    int end = off + len;
    int p = off;
    long h;
    if (len >= 32) {
      long v1 = seed + P1 + P2;
      long v2 = seed + P2;
      long v3 = seed;
      long v4 = seed - P1;
      for (int limit = end - 32; p <= limit; p += 32) {
        v1 = round(v1, (long) LONGS.get(b, p));
        v2 = round(v2, (long) LONGS.get(b, p + 8));
        v3 = round(v3, (long) LONGS.get(b, p + 16));
        v4 = round(v4, (long) LONGS.get(b, p + 24));
      }
      h = Long.rotateLeft(v1, 1) + Long.rotateLeft(v2, 7) + Long.rotateLeft(v3, 12)
          + Long.rotateLeft(v4, 18);
      h = merge(h, v1);
      h = merge(h, v2);
      h = merge(h, v3);
      h = merge(h, v4);
    } else {
      h = seed + P5;
    }
    h += len;
    for (; p + 8 <= end; p += 8) {
      h ^= round(0, (long) LONGS.get(b, p));
      h = Long.rotateLeft(h, 27) * P1 + P4;
    }
    if (p + 4 <= end) {
      h ^= ((int) INTS.get(b, p) & 0xFFFFFFFFL) * P1;
      h = Long.rotateLeft(h, 23) * P2 + P3;
      p += 4;
    }
    for (; p < end; p++) {
      h ^= (b[p] & 0xFFL) * P5;
      h = Long.rotateLeft(h, 11) * P1;
    }
    h ^= h >>> 33;
    h *= P2;
    h ^= h >>> 29;
    h *= P3;
    h ^= h >>> 32;
    return h;
  }

  private static long round(long acc, long lane) {
    return Long.rotateLeft(acc + lane * P2, 31) * P1;
  }

  private static long merge(long h, long v) {
    return (h ^ round(0, v)) * P1 + P4;
  }
}
