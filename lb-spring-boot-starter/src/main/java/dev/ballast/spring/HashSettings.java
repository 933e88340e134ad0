package dev.ballast.spring;

import dev.ballast.core.HashConfig;
import dev.ballast.core.KeyHash;
import dev.ballast.spring.internal.PropertyChecks;
import java.util.Locale;

/**
 * The checked settings of balancing by key, made from a client's {@code hash.*} properties.
 *
 * @param config lb-core's settings: ring sizes, Maglev's table size, bounded load, ketama's key
 *     hash and the label naming a server
 * @param requestHashHeader gRPC: the lower-case header carrying a call's key, or empty for none
 */
public record HashSettings(HashConfig config, String requestHashHeader) {

  /**
   * Checks the properties.
   *
   * @throws InvalidBallastPropertyException naming the first bad property
   */
  static HashSettings from(PropertyChecks p, HashProperties h) {
    HashConfig.Builder b = HashConfig.builder();
    int min = ringSize(p, "hash.min-ring-size", h.getMinRingSize());
    int max = ringSize(p, "hash.max-ring-size", h.getMaxRingSize());
    if (min > max) {
      throw p.invalid("hash.min-ring-size", min, "above hash.max-ring-size (" + max + ")",
          "at most hash.max-ring-size");
    }
    b.minRingSize(min).maxRingSize(max);
    try {
      b.tableSize(h.getTableSize());
    } catch (IllegalArgumentException e) {
      throw p.invalid("hash.table-size", h.getTableSize(), "not a prime up to "
          + HashConfig.MAX_TABLE_SIZE, "a prime, e.g. 65537 or 655373");
    }
    double bound = h.getLoadBound();
    if (!(bound == 0 || (bound >= 1 && bound <= 1000))) {
      throw p.invalid("hash.load-bound", bound, "out of range",
          "0 for unbounded, or 1 to 1000, e.g. 1.25");
    }
    b.loadBound(bound);
    StringBuilder hashes = new StringBuilder("one of ");
    for (KeyHash k : KeyHash.values()) {
      hashes.append(k.ordinal() == 0 ? "" : ", ").append(k.id());
    }
    String keyHash = p.notBlank("hash.key-hash", h.getKeyHash(), hashes.toString());
    try {
      b.keyHash(KeyHash.fromName(keyHash));
    } catch (IllegalArgumentException e) {
      throw p.invalid("hash.key-hash", keyHash, "unknown key hash", hashes.toString());
    }
    String label = h.getNameLabel() == null ? "" : h.getNameLabel().trim();
    if (!label.isEmpty()) {
      String problem = PropertyChecks.labelKeyProblem(label);
      if (problem != null) {
        throw p.invalid("hash.name-label", label, problem, "a label key, e.g. name");
      }
      b.nameLabel(label);
    }
    String header = h.getRequestHashHeader() == null ? ""
        : h.getRequestHashHeader().trim().toLowerCase(Locale.ROOT);
    for (int i = 0; i < header.length(); i++) {
      char c = header.charAt(i);
      if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_'
          || c == '.')) {
        throw p.invalid("hash.request-hash-header", header, "unexpected character '" + c + "'",
            "a header name of letters, digits, '-', '_' or '.', e.g. x-user-id");
      }
    }
    if (header.endsWith("-bin")) {
      throw p.invalid("hash.request-hash-header", header, "a binary header",
          "a text header, e.g. x-user-id");
    }
    return new HashSettings(b.build(), header);
  }

  private static int ringSize(PropertyChecks p, String property, int size) {
    if (size < 1 || size > HashConfig.MAX_RING_SIZE) {
      throw p.invalid(property, size, "out of range", "an integer in 1-" + HashConfig.MAX_RING_SIZE);
    }
    return size;
  }
}
