package dev.ballast.core.internal;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.zip.CRC32;

/**
 * A thread's scratch space for hashing keys: a key's UTF-8 bytes (written without allocating
 * while the key is ASCII and fits the buffer), and the thread's MD5 digest and CRC-32, so that
 * hashing a key on a pick allocates nothing in steady state.
 */
public final class KeyBytes {

  private static final ThreadLocal<KeyBytes> LOCAL = ThreadLocal.withInitial(KeyBytes::new);

  private byte[] bytes = new byte[128];
  private int length;
  private final MessageDigest md5;
  private final byte[] digest = new byte[16];
  private final CRC32 crc = new CRC32();

  private KeyBytes() {
    try {
      md5 = MessageDigest.getInstance("MD5");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("MD5 is required of every Java platform", e);
    }
  }

  /** Returns the calling thread's scratch holding the UTF-8 bytes of {@code key}. */
  public static KeyBytes of(CharSequence key) {
    KeyBytes k = LOCAL.get();
    k.set(key);
    return k;
  }

  private void set(CharSequence key) {
    int n = key.length();
    if (n > bytes.length) {
      bytes = new byte[Math.max(n, bytes.length * 2)];
    }
    for (int i = 0; i < n; i++) {
      char c = key.charAt(i);
      if (c >= 0x80) {
        byte[] utf8 = key.toString().getBytes(StandardCharsets.UTF_8);
        if (utf8.length > bytes.length) {
          bytes = new byte[utf8.length];
        }
        System.arraycopy(utf8, 0, bytes, 0, utf8.length);
        length = utf8.length;
        return;
      }
      bytes[i] = (byte) c;
    }
    length = n;
  }

  /** Returns the buffer; the key is its first {@link #length()} bytes. */
  public byte[] bytes() {
    return bytes;
  }

  /** Returns the key's length in bytes. */
  public int length() {
    return length;
  }

  /** Returns the MD5 digest of {@code len} bytes of {@code b}, in a buffer this thread reuses. */
  public byte[] md5(byte[] b, int len) {
    md5.update(b, 0, len);
    try {
      md5.digest(digest, 0, 16);
    } catch (java.security.DigestException e) {
      throw new IllegalStateException(e);
    }
    return digest;
  }

  /** Returns the standard CRC-32 (zlib's) of {@code len} bytes of {@code b}. */
  public long crc32(byte[] b, int len) {
    crc.reset();
    crc.update(b, 0, len);
    return crc.getValue();
  }

  /** Returns the calling thread's scratch, for hashing bytes it already has. */
  public static KeyBytes local() {
    return LOCAL.get();
  }

  /**
   * Word {@code x} of an MD5 digest as an unsigned little-endian 32-bit value: ketama's points
   * (four per digest) and libmemcached's MD5 key hash (word 0).
   */
  public static long point(byte[] digest, int x) {
    int i = 4 * x;
    return (digest[i] & 0xFFL) | (digest[i + 1] & 0xFFL) << 8 | (digest[i + 2] & 0xFFL) << 16
        | (digest[i + 3] & 0xFFL) << 24;
  }
}
