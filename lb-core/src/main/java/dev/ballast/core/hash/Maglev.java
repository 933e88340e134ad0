package dev.ballast.core.hash;

import dev.ballast.core.Balancer;
import dev.ballast.core.BalancerConfig;
import dev.ballast.core.Endpoint;
import dev.ballast.core.HashConfig;
import dev.ballast.core.Node;
import dev.ballast.core.engine.Snapshot;
import dev.ballast.core.internal.XxHash64;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.concurrent.atomic.LongAdder;

/**
 * Maglev hashing (Eisenbud et al., "Maglev: A Fast and Reliable Software Network Load Balancer",
 * NSDI 2016, section 3.4): a lookup table of prime size M (default 65,537) in which every
 * endpoint owns close to its weight's share of the entries, so a pick is one table read.
 *
 * <p>Each endpoint has a permutation of the table, {@code (offset + j * skip) mod M}, with {@code
 * offset = h0(name) mod M} and {@code skip = h1(name) mod (M - 1) + 1} (h0 and h1: xxHash64 of
 * the name with seeds 0 and 1, as Envoy does; the name is the {@link HashConfig#nameLabel() name
 * label} if set, else {@code host:port}). Endpoints take turns claiming their next entry that is
 * still free until the table is full. Weights set how often an endpoint takes its turn, as the
 * paper suggests: each round every endpoint gains its weight in credit and takes a turn per
 * maximum weight of credit. Turns go in the order of the names, so every client builds the same
 * table whatever order its endpoints come in. With M much larger than N, shares are within about
 * 1% of their targets, and removing one of N endpoints moves little more than its own 1/N of the
 * keys.
 *
 * <p>A key's entry is {@code (hash >>> 32) * M >>> 32} (D. Lemire, "A fast alternative to the
 * modulo reduction", 2016, a multiply instead of a division). If its owner is unavailable or over
 * its bounded load, the key tries the owners of the following entries, which are spread over
 * all endpoints. Building the table costs about {@code M ln M} probes; it happens on update, never
 * on a pick.
 *
 * <p>Not designed for extension: it is not final only so that its deprecated alias {@code
 * dev.ballast.core.Maglev} can extend it, until the alias goes in the next version.
 *
 * @param <T> the thing being balanced
 */
public class Maglev<T> extends AbstractHashBalancer<T> {

  /** The algorithm's name: {@code maglev}. */
  public static final String NAME = "maglev";

  /** Creates a balancer with the default {@link BalancerConfig} and {@link HashConfig}. */
  public Maglev() {
    this(BalancerConfig.defaults(), HashConfig.defaults());
  }

  /**
   * Creates a balancer; uses the table size, name label and load bound of {@code hashConfig},
   * and the random source (for picks without a key), effort and panic settings of {@code
   * config}.
   */
  public Maglev(BalancerConfig config, HashConfig hashConfig) {
    super(NAME, config, hashConfig);
  }

  @Override
  public long hash(CharSequence key) {
    return xxHash64(key);
  }

  @Override
  protected void checkWeights(int[] weights) {
    if (weights.length > hashConfig.tableSize()) {
      throw new IllegalArgumentException("endpoints: " + weights.length + " (expected: at most"
          + " the Maglev tableSize " + hashConfig.tableSize() + ", better 100 times fewer)");
    }
  }

  @Override
  protected Snapshot<T> snapshotOfEndpoints(Node<T>[] nodes, int[] weights, Endpoint[] endpoints) {
    int n = nodes.length;
    int m = hashConfig.tableSize();
    // turns go in name order, so the table does not depend on the order of the endpoints
    String[] names = new String[n];
    Integer[] byName = new Integer[n];
    for (int i = 0; i < n; i++) {
      String label = labelName(endpoints[i]);
      names[i] = label != null ? label : endpoints[i].address();
      byName[i] = i;
    }
    Arrays.sort(byName, (a, b) -> {
      int c = names[a].compareTo(names[b]);
      return c != 0 ? c : endpoints[a].address().compareTo(endpoints[b].address());
    });
    int[] next = new int[n];
    int[] skip = new int[n];
    int maxWeight = 0;
    for (int i = 0; i < n; i++) {
      byte[] name = names[i].getBytes(StandardCharsets.UTF_8);
      next[i] = (int) Long.remainderUnsigned(XxHash64.hash(name, 0, name.length, 0), m);
      skip[i] = (int) Long.remainderUnsigned(XxHash64.hash(name, 0, name.length, 1), m - 1) + 1;
      maxWeight = Math.max(maxWeight, weights[i]);
    }
    int[] table = new int[m];
    Arrays.fill(table, -1);
    long[] credit = new long[n];
    int filled = 0;
    while (filled < m) {
      for (int k = 0; k < n && filled < m; k++) {
        int i = byName[k];
        credit[i] += weights[i];
        if (credit[i] < maxWeight) {
          continue;
        }
        credit[i] -= maxWeight;
        int c = next[i];
        while (table[c] >= 0) {
          c += skip[i];
          if (c >= m) {
            c -= m;
          }
        }
        table[c] = i;
        filled++;
        c += skip[i];
        next[i] = c >= m ? c - m : c;
      }
    }
    return new TableSnapshot<>(nodes, weights, table, config, hashConfig.loadBound(),
        inFlight());
  }

  private static final class TableSnapshot<T> extends HashSnapshot<T> {
    private final int[] table;

    TableSnapshot(Node<T>[] nodes, int[] weights, int[] table, BalancerConfig config,
        double loadBound, LongAdder inFlight) {
      super(NAME, nodes, weights, config, loadBound, inFlight);
      this.table = table;
    }

    @Override
    protected int positions() {
      return table.length;
    }

    @Override
    protected int position(long hash) {
      return (int) (((hash >>> 32) * table.length) >>> 32);
    }

    @Override
    protected int owner(int position) {
      return table[position];
    }
  }
}
