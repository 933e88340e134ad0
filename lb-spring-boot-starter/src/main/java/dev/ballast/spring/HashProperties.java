package dev.ballast.spring;

/**
 * Balancing by key, for a client whose balancer is {@code ring-hash}, {@code ketama} or {@code
 * maglev}, under {@code ballast.clients.<name>.hash.}: the ring or table, the bounded load, how
 * keys are hashed and where gRPC calls carry them. An lb-netty call gives its key with {@code
 * CallOptions}; a gRPC call in the {@code request-hash-header} header or lb-grpc's {@code
 * REQUEST_KEY} call option.
 *
 * <pre>
 * ballast.clients.cache.balancer=ketama
 * ballast.clients.cache.hash.key-hash=fnv1a_64
 * ballast.clients.cache.hash.name-label=name
 * </pre>
 */
public class HashProperties {

  /** ring-hash: the ring's lower size bound (gRPC's min_ring_size); 1 to 8388608. */
  private int minRingSize = 1024;

  /** ring-hash: the ring's upper size bound (gRPC's max_ring_size); 1 to 8388608. */
  private int maxRingSize = 4096;

  /** maglev: the lookup table's size, a prime up to 16777216. */
  private int tableSize = 65537;

  /**
   * Bounded load factor c: no endpoint takes more than c times its share of the requests in
   * flight (1.25 suggested); at least 1, or 0 for unbounded.
   */
  private double loadBound = 0;

  /**
   * ketama: how keys are hashed, as twemproxy's hash setting: fnv1a_64, fnv1_64, fnv1a_32,
   * fnv1_32, md5, crc32a, crc32, murmur or one_at_a_time.
   */
  private String keyHash = "fnv1a_64";

  /**
   * ketama, maglev: the endpoint label whose value names a server (twemproxy's server name);
   * empty: servers are named by address.
   */
  private String nameLabel = "";

  /**
   * gRPC: the call header whose value is the call's key (gRFC A76); empty: only lb-grpc's
   * REQUEST_KEY call option gives one.
   */
  private String requestHashHeader = "";

  /** Returns the ring's lower size bound; default 1024. */
  public int getMinRingSize() {
    return minRingSize;
  }

  /** Sets the ring's lower size bound. */
  public void setMinRingSize(int minRingSize) {
    this.minRingSize = minRingSize;
  }

  /** Returns the ring's upper size bound; default 4096. */
  public int getMaxRingSize() {
    return maxRingSize;
  }

  /** Sets the ring's upper size bound. */
  public void setMaxRingSize(int maxRingSize) {
    this.maxRingSize = maxRingSize;
  }

  /** Returns Maglev's table size; default 65537. */
  public int getTableSize() {
    return tableSize;
  }

  /** Sets Maglev's table size. */
  public void setTableSize(int tableSize) {
    this.tableSize = tableSize;
  }

  /** Returns the bounded load factor; default 0 (unbounded). */
  public double getLoadBound() {
    return loadBound;
  }

  /** Sets the bounded load factor. */
  public void setLoadBound(double loadBound) {
    this.loadBound = loadBound;
  }

  /** Returns ketama's key hash; default {@code fnv1a_64}. */
  public String getKeyHash() {
    return keyHash;
  }

  /** Sets ketama's key hash. */
  public void setKeyHash(String keyHash) {
    this.keyHash = keyHash;
  }

  /** Returns the label naming a server; empty by default. */
  public String getNameLabel() {
    return nameLabel;
  }

  /** Sets the label naming a server. */
  public void setNameLabel(String nameLabel) {
    this.nameLabel = nameLabel;
  }

  /** Returns the gRPC header carrying a call's key; empty by default. */
  public String getRequestHashHeader() {
    return requestHashHeader;
  }

  /** Sets the gRPC header carrying a call's key. */
  public void setRequestHashHeader(String requestHashHeader) {
    this.requestHashHeader = requestHashHeader;
  }
}
