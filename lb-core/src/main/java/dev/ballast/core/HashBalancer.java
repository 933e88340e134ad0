package dev.ballast.core;

/**
 * A balancer that picks by a request's key, so that the same key reaches the same node while
 * the endpoint set stays: ring hash (gRPC's {@code ring_hash}), ketama (twemproxy's and
 * libmemcached's) and Maglev, in {@code dev.ballast.core.hash}, where adding or removing one of N
 * endpoints moves about 1/N of the keys; and a team's rule on the engine ({@code
 * dev.ballast.core.engine.KeyedDistributorBalancer}), which passes a closed node's key to its
 * next attempt, then scans as below.
 *
 * <p>A key's node that is {@link Availability#CLOSED}, or is above its bounded load ({@link
 * HashConfig#loadBound()}, lb-core's only), passes the key on along the ring or table (up to {@link
 * BalancerConfig#maxEffort()} nodes, then a scan of all nodes from a place the key decides), so
 * that a key still lands on one node, the same for every client. A {@link Availability#BUSY}
 * node (connecting) keeps its keys, as in gRPC's {@code ring_hash} (gRFC A61). {@link #pick()}
 * without a key picks with a random hash and passes over busy nodes too.
 *
 * @param <T> the thing being balanced
 */
public interface HashBalancer<T> extends Balancer<T> {

  /**
   * Picks the node for a 64-bit hash and counts one pending request on it, as {@link #pick()}
   * does; ketama reads the hash's low 32 bits, as twemproxy's hashes are 32-bit.
   *
   * @throws NoAvailableEndpointException if the set is empty, or no node is open and the config
   *     does not allow a {@linkplain BalancerConfig#panicPick() panic pick}
   */
  Node<T> pick(long hash);

  /**
   * Picks the node for a 64-bit hash as {@link #pick(long)} does but counts no pending request
   * (see {@link Balancer#pickUncounted()}): for callers that count the request with {@link
   * Node#start()} only once it is sent. Default: {@link #pick(long)}, then {@link
   * Node#cancel()}; lb-core's hash balancers count nothing.
   *
   * @throws NoAvailableEndpointException as {@link #pick(long)}
   */
  default Node<T> pickUncounted(long hash) {
    Node<T> node = pick(hash);
    node.cancel();
    return node;
  }

  /**
   * Returns the key's hash, computed with the algorithm's own function over its UTF-8 bytes:
   * xxHash64 for ring hash and Maglev, {@link HashConfig#keyHash()} for ketama. Allocates nothing
   * for ASCII keys.
   */
  long hash(CharSequence key);

  /** Picks the node for a key: {@code pick(hash(key))}. */
  default Node<T> pick(CharSequence key) {
    return pick(hash(key));
  }
}
