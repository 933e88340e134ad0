package dev.ballast.core;

import dev.ballast.core.internal.KeyBytes;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * The functions twemproxy (nutcracker) offers to hash a request key for ketama, by its
 * configuration name ({@code hash: fnv1a_64}), each returning twemproxy's 32-bit value so that a
 * key lands on the same server as through twemproxy. They hash the key's UTF-8 bytes; as in
 * twemproxy, bytes above 0x7F enter the {@code fnv1} family and {@code one_at_a_time}
 * sign-extended (C's signed {@code char} on x86). twemproxy's {@code hsieh}, {@code jenkins}
 * and {@code crc16} are not offered.
 */
public enum KeyHash {
  /** FNV-1a with FNV-64's offset and prime, computed in 32 bits: twemproxy's default. */
  FNV1A_64 {
    @Override
    long hash(byte[] b, int n) {
      int h = (int) 0xCBF29CE484222325L;
      for (int i = 0; i < n; i++) {
        h ^= b[i];
        h *= (int) 0x100000001B3L;
      }
      return h & MASK;
    }
  },
  /** FNV-1 in 64 bits, truncated to the low 32. */
  FNV1_64 {
    @Override
    long hash(byte[] b, int n) {
      long h = 0xCBF29CE484222325L;
      for (int i = 0; i < n; i++) {
        h *= 0x100000001B3L;
        h ^= b[i];
      }
      return h & MASK;
    }
  },
  /** FNV-1a in 32 bits. */
  FNV1A_32 {
    @Override
    long hash(byte[] b, int n) {
      int h = 0x811C9DC5;
      for (int i = 0; i < n; i++) {
        h ^= b[i];
        h *= 16777619;
      }
      return h & MASK;
    }
  },
  /** FNV-1 in 32 bits. */
  FNV1_32 {
    @Override
    long hash(byte[] b, int n) {
      int h = 0x811C9DC5;
      for (int i = 0; i < n; i++) {
        h *= 16777619;
        h ^= b[i];
      }
      return h & MASK;
    }
  },
  /** The first four bytes of the key's MD5, little-endian (libmemcached's ketama default). */
  MD5 {
    @Override
    long hash(byte[] b, int n) {
      return KeyBytes.point(KeyBytes.local().md5(b, n), 0);
    }
  },
  /** The standard CRC-32 (zlib's). */
  CRC32A {
    @Override
    long hash(byte[] b, int n) {
      return KeyBytes.local().crc32(b, n);
    }
  },
  /** libmemcached's CRC-32 variant: bits 16-30 of the standard CRC-32. */
  CRC32 {
    @Override
    long hash(byte[] b, int n) {
      return (KeyBytes.local().crc32(b, n) >>> 16) & 0x7FFF;
    }
  },
  /** MurmurHash2 (Austin Appleby) with twemproxy's seed {@code 0xdeadbeef * length}. */
  MURMUR {
    @Override
    @SuppressWarnings("fallthrough")
    long hash(byte[] b, int n) {
      int m = 0x5BD1E995;
      int h = (0xDEADBEEF * n) ^ n;
      int i = 0;
      for (; n - i >= 4; i += 4) {
        int k = (b[i] & 0xFF) | (b[i + 1] & 0xFF) << 8 | (b[i + 2] & 0xFF) << 16 | b[i + 3] << 24;
        k *= m;
        k ^= k >>> 24;
        k *= m;
        h = h * m ^ k;
      }
      switch (n - i) {
        case 3:
          h ^= (b[i + 2] & 0xFF) << 16;
          // fall through
        case 2:
          h ^= (b[i + 1] & 0xFF) << 8;
          // fall through
        case 1:
          h ^= b[i] & 0xFF;
          h *= m;
          break;
        default:
          break;
      }
      h ^= h >>> 13;
      h *= m;
      h ^= h >>> 15;
      return h & MASK;
    }
  },
  /** Bob Jenkins' one-at-a-time hash. */
  ONE_AT_A_TIME {
    @Override
    long hash(byte[] b, int n) {
      int h = 0;
      for (int i = 0; i < n; i++) {
        h += b[i];
        h += h << 10;
        h ^= h >>> 6;
      }
      h += h << 3;
      h ^= h >>> 11;
      h += h << 15;
      return h & MASK;
    }
  };

  private static final long MASK = 0xFFFFFFFFL;

  /** Hashes the first {@code n} bytes of {@code b} (which the thread's key scratch holds). */
  abstract long hash(byte[] b, int n);

  /** Returns the key's 32-bit hash, as twemproxy computes it, in {@code [0, 2^32)}. */
  public long hash(CharSequence key) {
    KeyBytes k = KeyBytes.of(Objects.requireNonNull(key, "key"));
    return hash(k.bytes(), k.length());
  }

  /** Returns twemproxy's name, e.g. {@code fnv1a_64}. */
  public String id() {
    return name().toLowerCase(Locale.ROOT);
  }

  /**
   * Returns the function with twemproxy's name ({@code fnv1a_64}, {@code md5}, {@code murmur},
   * ...); case-insensitive, {@code -} works as {@code _}.
   *
   * @throws IllegalArgumentException naming the unknown value and the known ones
   */
  public static KeyHash fromName(String name) {
    Objects.requireNonNull(name, "name");
    try {
      return dev.ballast.core.config.ValueType.named(List.of(values()), KeyHash::id).parse(name);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("keyHash: " + e.getMessage(), e);
    }
  }
}
