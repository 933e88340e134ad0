package dev.ballast.core.hash;

import dev.ballast.core.BalancerConfig;
import dev.ballast.core.Endpoint;
import dev.ballast.core.HashConfig;
import dev.ballast.core.Node;
import dev.ballast.core.engine.Snapshot;
import dev.ballast.core.internal.HostSyntax;
import dev.ballast.core.internal.XxHash64;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Ring hash as gRPC's {@code ring_hash} policy builds it (gRFC A42, the request-hash header of
 * gRFC A76; Envoy's ring hash before it), so that a key reaches the same endpoint as through
 * gRPC-java's own policy over the same addresses.
 *
 * <p>The ring: with weights {@code w_i} of total {@code W}, {@code scale = min(ceil(min_i(w_i/W) *
 * minRingSize) / min_i(w_i/W), maxRingSize)}; endpoint i takes entries while a running count of
 * entries stays below the running sum of {@code scale * w_i / W}, entry k hashed as xxHash64 of
 * {@code "<address>_<k>"}, where the address is the {@code toString()} of the first socket
 * address of its group (gRFC A61). Entries are sorted by hash as signed 64-bit numbers.
 * Fractional targets carry from one endpoint to the next, so the order of endpoints decides which
 * of them gets a spare entry: gRPC-java walks a {@code HashMap} keyed by address group, and so does
 * this class, with the same hash codes ({@link HashConfig#ringAddresses()}).
 *
 * <p>A hash goes to the first entry whose hash is at least its own; above the last entry it stays
 * on the last one, as gRPC-java's search does (Envoy wraps to the first). Keys are hashed with
 * xxHash64 of their UTF-8 bytes; gRPC-java hashes a header's characters' low bytes, the same for
 * the ASCII that headers hold, and joins repeated headers with commas.
 *
 * <p>Not designed for extension: it is not final only so that its deprecated alias {@code
 * dev.ballast.core.RingHash} can extend it, until the alias goes in the next version.
 *
 * @param <T> the thing being balanced
 */
public class RingHash<T> extends AbstractHashBalancer<T> {

  /** The algorithm's name: {@code ring_hash}. */
  public static final String NAME = "ring_hash";


  /** Creates a balancer with the default {@link BalancerConfig} and {@link HashConfig}. */
  public RingHash() {
    this(BalancerConfig.defaults(), HashConfig.defaults());
  }

  /**
   * Creates a balancer; uses the ring sizes, ring addresses and load bound of {@code hashConfig},
   * and the random source (for picks without a key), effort and panic settings of {@code config}.
   */
  public RingHash(BalancerConfig config, HashConfig hashConfig) {
    super(NAME, config, hashConfig);
  }

  /**
   * Returns the socket address gRPC-java would hold for an endpoint given by IP, without any DNS
   * look-up: the IP literal's {@link InetSocketAddress} (named {@code /10.0.0.1:443}); for a host
   * name, an unresolved one ({@code api/<unresolved>:443}). gRPC-java's DNS resolver hands its
   * policy resolved addresses that keep the name ({@code api/10.0.0.1:443}), so endpoints given by
   * name match gRPC-java's ring only through lb-grpc, which passes the resolved addresses.
   */
  public static List<SocketAddress> addressesOf(Endpoint e) {
    return HostSyntax.socketAddresses(e.host(), e.port());
  }

  @Override
  public long hash(CharSequence key) {
    return xxHash64(key);
  }

  @Override
  protected Snapshot<T> snapshotOfEndpoints(Node<T>[] nodes, int[] weights, Endpoint[] endpoints) {
    int n = nodes.length;
    // gRPC-java's iteration order: a HashMap keyed by each endpoint's address group
    Map<Group, Integer> order = new HashMap<>();
    byte[][] names = new byte[n][];
    long total = 0;
    int min = Integer.MAX_VALUE;
    for (int i = 0; i < n; i++) {
      List<? extends SocketAddress> group = hashConfig.ringAddresses().apply(endpoints[i]);
      if (group == null || group.isEmpty()) {
        throw new IllegalStateException("ringAddresses gave no address for "
            + endpoints[i].address() + " (expected: at least one)");
      }
      order.put(new Group(group.hashCode()), i);
      names[i] = ascii(group.get(0) + "_");
      total += weights[i];
      min = Math.min(min, weights[i]);
    }
    double minShare = (double) min / total;
    double scale = Math.min(Math.ceil(minShare * hashConfig.minRingSize()) / minShare,
        (double) hashConfig.maxRingSize());
    long[] hashes = new long[(int) Math.ceil(scale) + n];
    int[] owners = new int[hashes.length];
    int size = 0;
    double current = 0;
    double target = 0;
    byte[] buf = new byte[64];
    for (int i : order.values()) {
      target += scale * ((double) weights[i] / total);
      for (long k = 0; current < target; k++, current++) {
        byte[] name = names[i];
        String digits = Long.toString(k);
        int len = name.length + digits.length();
        if (len > buf.length) {
          buf = new byte[len * 2];
        }
        System.arraycopy(name, 0, buf, 0, name.length);
        for (int d = 0; d < digits.length(); d++) {
          buf[name.length + d] = (byte) digits.charAt(d);
        }
        if (size == hashes.length) {
          hashes = Arrays.copyOf(hashes, size * 2);
          owners = Arrays.copyOf(owners, size * 2);
        }
        hashes[size] = XxHash64.hash(buf, 0, len, 0);
        owners[size++] = i;
      }
    }
    return new RingSnapshot<>(NAME, nodes, weights, hashes, owners, size, -1L, false, config,
        hashConfig.loadBound(), inFlight());
  }

  /** The characters' low bytes, as gRPC-java's {@code hashAsciiString} reads a string. */
  private static byte[] ascii(String s) {
    byte[] b = new byte[s.length()];
    for (int i = 0; i < b.length; i++) {
      b[i] = (byte) s.charAt(i);
    }
    return b;
  }

  /** An address group as a HashMap key: gRPC-java's hash code, identity equality. */
  private static final class Group {
    private final int hash;

    Group(int hash) {
      this.hash = hash;
    }

    @Override
    public int hashCode() {
      return hash;
    }

    @Override
    public boolean equals(Object o) {
      return this == o;
    }
  }
}
