package dev.ballast.core;

import dev.ballast.core.internal.HostSyntax;
import java.net.SocketAddress;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;

/**
 * Immutable settings of the balancers that pick by key (ring hash, ketama,
 * Maglev); each reads the ones it needs.
 *
 * <table>
 *   <caption>Settings and defaults</caption>
 *   <tr><th>setting</th><th>default</th><th>used by</th></tr>
 *   <tr><td>{@link #minRingSize()}</td><td>1024</td><td>ring hash (gRPC-java's default)</td></tr>
 *   <tr><td>{@link #maxRingSize()}</td><td>4096</td><td>ring hash (gRPC-java's default)</td></tr>
 *   <tr><td>{@link #ringAddresses()}</td><td>{@code RingHash.addressesOf}</td><td>ring hash: the
 *       socket addresses gRPC-java would name an endpoint by</td></tr>
 *   <tr><td>{@link #tableSize()}</td><td>65537</td><td>Maglev: the lookup table's size, a
 *       prime</td></tr>
 *   <tr><td>{@link #loadBound()}</td><td>0 (off)</td><td>ring hash, Maglev, ketama: bounded
 *       load factor c, 1.25 suggested</td></tr>
 *   <tr><td>{@link #keyHash()}</td><td>{@link KeyHash#FNV1A_64}</td><td>ketama: how keys are
 *       hashed (twemproxy's {@code hash:})</td></tr>
 *   <tr><td>{@link #nameLabel()}</td><td>none</td><td>ketama, Maglev: the endpoint label that
 *       names a server (twemproxy's server name)</td></tr>
 * </table>
 */
public final class HashConfig {

  /** The largest ring, in entries: gRFC A42's upper bound for {@code max_ring_size}. */
  public static final int MAX_RING_SIZE = 8 * 1024 * 1024;

  /** The largest Maglev table. */
  public static final int MAX_TABLE_SIZE = 1 << 24;

  /** The bounded-load factor suggested by Mirrokni, Thorup and Zadimoghaddam (and Envoy). */
  public static final double SUGGESTED_LOAD_BOUND = 1.25;

  private static final HashConfig DEFAULTS = builder().build();

  private final int minRingSize;
  private final int maxRingSize;
  private final Function<? super Endpoint, ? extends List<? extends SocketAddress>> ringAddresses;
  private final int tableSize;
  private final double loadBound;
  private final KeyHash keyHash;
  private final String nameLabel;
  private final String requestHashHeader;

  private HashConfig(Builder b) {
    this.minRingSize = b.minRingSize;
    this.maxRingSize = b.maxRingSize;
    this.ringAddresses = b.ringAddresses;
    this.tableSize = b.tableSize;
    this.loadBound = b.loadBound;
    this.keyHash = b.keyHash;
    this.nameLabel = b.nameLabel;
    this.requestHashHeader = b.requestHashHeader;
  }

  /** Returns the default settings. */
  public static HashConfig defaults() {
    return DEFAULTS;
  }

  /** Returns a builder holding the defaults. */
  public static Builder builder() {
    return new Builder();
  }

  /** Returns a builder holding these settings. */
  public Builder toBuilder() {
    Builder b = new Builder();
    b.minRingSize = minRingSize;
    b.maxRingSize = maxRingSize;
    b.ringAddresses = ringAddresses;
    b.tableSize = tableSize;
    b.loadBound = loadBound;
    b.keyHash = keyHash;
    b.nameLabel = nameLabel;
    b.requestHashHeader = requestHashHeader;
    return b;
  }

  /** Returns the ring's lower size bound (gRFC A42 {@code min_ring_size}); default 1024. */
  public int minRingSize() {
    return minRingSize;
  }

  /** Returns the ring's upper size bound (gRFC A42 {@code max_ring_size}); default 4096. */
  public int maxRingSize() {
    return maxRingSize;
  }

  /**
   * Returns what gives, for an endpoint, the socket addresses gRPC-java's {@code ring_hash}
   * would hold for it (its address group); default {@code RingHash.addressesOf}.
   */
  public Function<? super Endpoint, ? extends List<? extends SocketAddress>> ringAddresses() {
    return ringAddresses;
  }

  /** Returns the Maglev lookup table's size, a prime; default 65537. */
  public int tableSize() {
    return tableSize;
  }

  /** Returns the bounded-load factor c, or 0 when loads are not bounded (the default). */
  public double loadBound() {
    return loadBound;
  }

  /** Returns how ketama hashes keys; default {@link KeyHash#FNV1A_64}, twemproxy's default. */
  public KeyHash keyHash() {
    return keyHash;
  }

  /** Returns the label naming a server for ketama and Maglev, or null (the default). */
  public String nameLabel() {
    return nameLabel;
  }

  /**
   * Returns the header whose value is a call's key (gRFC A76's {@code request_hash_header}),
   * lower-cased, or null (the default: only an explicit key option gives one); read by the gRPC
   * policies.
   */
  public String requestHashHeader() {
    return requestHashHeader;
  }

  @Override
  public boolean equals(Object o) {
    if (!(o instanceof HashConfig)) {
      return false;
    }
    HashConfig c = (HashConfig) o;
    return minRingSize == c.minRingSize && maxRingSize == c.maxRingSize
        && ringAddresses.equals(c.ringAddresses) && tableSize == c.tableSize
        && loadBound == c.loadBound && keyHash == c.keyHash
        && Objects.equals(nameLabel, c.nameLabel)
        && Objects.equals(requestHashHeader, c.requestHashHeader);
  }

  @Override
  public int hashCode() {
    return Objects.hash(minRingSize, maxRingSize, ringAddresses, tableSize, loadBound, keyHash,
        nameLabel, requestHashHeader);
  }

  @Override
  public String toString() {
    return "HashConfig{minRingSize=" + minRingSize + ", maxRingSize=" + maxRingSize
        + ", tableSize=" + tableSize + ", loadBound=" + loadBound + ", keyHash=" + keyHash.id()
        + ", nameLabel=" + nameLabel + ", requestHashHeader=" + requestHashHeader + "}";
  }

  /** Builds a {@link HashConfig}; every setter checks its argument. */
  public static final class Builder {
    private int minRingSize = 1024;
    private int maxRingSize = 4096;
    private Function<? super Endpoint, ? extends List<? extends SocketAddress>> ringAddresses =
        e -> HostSyntax.socketAddresses(e.host(), e.port());
    private int tableSize = 65537;
    private double loadBound;
    private KeyHash keyHash = KeyHash.FNV1A_64;
    private String nameLabel;
    private String requestHashHeader;

    private Builder() {}

    /** Sets the ring's lower size bound, 1 to {@value #MAX_RING_SIZE}; default 1024. */
    public Builder minRingSize(int minRingSize) {
      this.minRingSize = ringSize("minRingSize", minRingSize);
      return this;
    }

    /** Sets the ring's upper size bound, 1 to {@value #MAX_RING_SIZE}; default 4096. */
    public Builder maxRingSize(int maxRingSize) {
      this.maxRingSize = ringSize("maxRingSize", maxRingSize);
      return this;
    }

    private static int ringSize(String field, int size) {
      if (size < 1 || size > MAX_RING_SIZE) {
        throw new IllegalArgumentException(
            field + ": " + size + " (expected: 1 to " + MAX_RING_SIZE + ")");
      }
      return size;
    }

    /**
     * Sets what gives an endpoint's socket addresses as gRPC-java's {@code ring_hash} holds them
     * (lb-grpc passes the resolved ones); default {@code RingHash.addressesOf}.
     */
    public Builder ringAddresses(
        Function<? super Endpoint, ? extends List<? extends SocketAddress>> ringAddresses) {
      this.ringAddresses = Objects.requireNonNull(ringAddresses, "ringAddresses");
      return this;
    }

    /** Sets the Maglev table size, a prime up to {@value #MAX_TABLE_SIZE}; default 65537. */
    public Builder tableSize(int tableSize) {
      if (tableSize < 2 || tableSize > MAX_TABLE_SIZE || !isPrime(tableSize)) {
        throw new IllegalArgumentException("tableSize: " + tableSize
            + " (expected: a prime from 2 to " + MAX_TABLE_SIZE + ", e.g. 65537)");
      }
      this.tableSize = tableSize;
      return this;
    }

    /**
     * Sets the bounded-load factor c (at least 1; {@value #SUGGESTED_LOAD_BOUND} suggested), or 0
     * to leave loads unbounded (the default).
     */
    public Builder loadBound(double loadBound) {
      if (!(loadBound == 0 || (loadBound >= 1 && loadBound <= 1000))) {
        throw new IllegalArgumentException(
            "loadBound: " + loadBound + " (expected: 0 for off, or 1 to 1000, e.g. 1.25)");
      }
      this.loadBound = loadBound;
      return this;
    }

    /** Sets how ketama hashes keys; default {@link KeyHash#FNV1A_64}. */
    public Builder keyHash(KeyHash keyHash) {
      this.keyHash = Objects.requireNonNull(keyHash, "keyHash");
      return this;
    }

    /**
     * Sets the endpoint label whose value names a server for ketama and Maglev (twemproxy's
     * {@code host:port:weight name}); endpoints without it are named by address. Null for none
     * (the default).
     */
    public Builder nameLabel(String nameLabel) {
      if (nameLabel != null && (nameLabel.isBlank() || !nameLabel.chars().allMatch(c ->
          Character.isLetterOrDigit(c) || c == '-' || c == '_' || c == '.' || c == '/'))) {
        throw new IllegalArgumentException("nameLabel: \"" + nameLabel
            + "\" (expected: a label key of letters, digits, '-', '_', '.' or '/', or null for none)");
      }
      this.nameLabel = nameLabel;
      return this;
    }

    /**
     * Sets the header whose value is a call's key (gRFC A76): a header name, neither binary
     * ({@code -bin}) nor a pseudo-header, lower-cased here; null for none (the default).
     */
    public Builder requestHashHeader(String header) {
      if (header == null) {
        this.requestHashHeader = null;
        return this;
      }
      String lower = header.trim().toLowerCase(java.util.Locale.ROOT);
      boolean ok = !lower.isEmpty() && !lower.startsWith(":") && !lower.endsWith("-bin");
      for (int i = 0; ok && i < lower.length(); i++) {
        char c = lower.charAt(i);
        ok = c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.';
      }
      if (!ok) {
        throw new IllegalArgumentException("requestHashHeader: \"" + header
            + "\" (expected: a header name of letters, digits, '-', '_' or '.', not a"
            + " pseudo-header nor a -bin one)");
      }
      this.requestHashHeader = lower;
      return this;
    }

    /**
     * Returns the settings.
     *
     * @throws IllegalArgumentException if the minimum ring size exceeds the maximum
     */
    public HashConfig build() {
      if (minRingSize > maxRingSize) {
        throw new IllegalArgumentException("minRingSize: " + minRingSize
            + " (expected: <= maxRingSize " + maxRingSize + ")");
      }
      return new HashConfig(this);
    }

    private static boolean isPrime(int n) {
      for (int d = 2; (long) d * d <= n; d++) {
        if (n % d == 0) {
          return false;
        }
      }
      return n >= 2;
    }
  }
}
