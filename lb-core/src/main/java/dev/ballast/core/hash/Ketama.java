package dev.ballast.core.hash;

import dev.ballast.core.BalancerConfig;
import dev.ballast.core.Endpoint;
import dev.ballast.core.HashConfig;
import dev.ballast.core.Node;
import dev.ballast.core.engine.Snapshot;
import dev.ballast.core.internal.KeyBytes;
import java.nio.charset.StandardCharsets;

/**
 * Ketama consistent hashing as twemproxy ({@code distribution: ketama}, {@code nc_ketama.c}) and
 * libmemcached build it (after Richard Jones' ketama for last.fm), so that a Ballast client and a
 * twemproxy in front of the same memcached or Redis servers put every key on the same server.
 *
 * <p>The continuum: server i of N with weight share {@code w_i / W} gets {@code floor(w_i / W *
 * 40 * N) * 4} points (160 for equal weights), computed in single precision as twemproxy does.
 * Point group k is the MD5 of {@code "<name>-<k>"}, whose 16 bytes give four 32-bit points
 * (little-endian). The name is the server's twemproxy name ({@code host:port:weight name}): the
 * endpoint's {@link HashConfig#nameLabel() name label} if set, else {@code host:port}, or just
 * {@code host} when the port is 11211 (libmemcached's convention, kept by twemproxy). Points are
 * sorted by value; a key's 32-bit hash ({@link HashConfig#keyHash()}, twemproxy's {@code hash:},
 * default {@code fnv1a_64}) goes to the first point at or above it, wrapping to the first.
 *
 * <p>Servers are taken in update order, as twemproxy takes them in its configuration's order;
 * the order only matters for points of equal value. twemproxy with {@code auto_eject_hosts}
 * rebuilds its continuum without an ejected server; here an unavailable server's keys move on
 * to the next points instead, and return when it does.
 *
 * <p>Not designed for extension: it is not final only so that its deprecated alias {@code
 * dev.ballast.core.Ketama} can extend it, until the alias goes in the next version.
 *
 * @param <T> the thing being balanced
 */
public class Ketama<T> extends AbstractHashBalancer<T> {

  /** The algorithm's name: {@code ketama}. */
  public static final String NAME = "ketama";

  /** The port libmemcached and twemproxy leave out of a server's name. */
  public static final int DEFAULT_PORT = 11211;

  /** Creates a balancer with the default {@link BalancerConfig} and {@link HashConfig}. */
  public Ketama() {
    this(BalancerConfig.defaults(), HashConfig.defaults());
  }

  /**
   * Creates a balancer; uses the key hash, name label and load bound of {@code hashConfig}, and
   * the random source (for picks without a key), effort and panic settings of {@code config}.
   */
  public Ketama(BalancerConfig config, HashConfig hashConfig) {
    super(NAME, config, hashConfig);
  }

  @Override
  public long hash(CharSequence key) {
    return hashConfig.keyHash().hash(key);
  }

  /** Returns the name an endpoint has on the continuum (see the class comment). */
  public String nameOf(Endpoint e) {
    String label = labelName(e);
    if (label != null) {
      return label;
    }
    return e.port() == DEFAULT_PORT ? e.host() : e.host() + ":" + e.port();
  }

  @Override
  protected Snapshot<T> snapshotOfEndpoints(Node<T>[] nodes, int[] weights, Endpoint[] endpoints) {
    int n = nodes.length;
    long total = 0;
    for (int w : weights) {
      total += w;
    }
    int[] counts = new int[n];
    int size = 0;
    for (int i = 0; i < n; i++) {
      // twemproxy: floorf((float) (pct * 160 / 4 * (float) n + 0.0000000001)) * 4, pct a float
      float pct = (float) weights[i] / (float) total;
      float groups = pct * 160 / 4 * (float) n;
      counts[i] = (int) Math.floor((float) (groups + 0.0000000001)) * 4;
      size += counts[i];
    }
    long[] points = new long[size];
    int[] owners = new int[size];
    int at = 0;
    KeyBytes scratch = KeyBytes.local();
    for (int i = 0; i < n; i++) {
      byte[] name = (nameOf(endpoints[i]) + "-").getBytes(StandardCharsets.UTF_8);
      byte[] buf = new byte[name.length + 10];
      System.arraycopy(name, 0, buf, 0, name.length);
      for (int k = 0; k < counts[i] / 4; k++) {
        int len = name.length;
        for (char c : Integer.toString(k).toCharArray()) {
          buf[len++] = (byte) c;
        }
        byte[] digest = scratch.md5(buf, len);
        for (int x = 0; x < 4; x++) {
          points[at] = KeyBytes.point(digest, x);
          owners[at++] = i;
        }
      }
    }
    return new RingSnapshot<>(NAME, nodes, weights, points, owners, size, 0xFFFF_FFFFL, true,
        config, hashConfig.loadBound(), inFlight());
  }

}
