package dev.ballast.sim;

import dev.ballast.core.Algorithm;
import dev.ballast.core.BalancerConfig;
import dev.ballast.core.Endpoint;
import dev.ballast.core.HashBalancer;
import dev.ballast.core.Node;
import java.io.IOException;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;

/**
 * The simulator's {@code disruption} scenario: N backends (default 100, weight 1), K keys
 * (default 1,000,000) placed by each key-hashing balancer, then one backend leaves and the keys are
 * placed again. It reports the share of keys that moved (ideal: the leaving backend's 1/N), how
 * many of them moved between backends that stayed (ideal: none), and the largest and smallest
 * backend's share of the keys against the mean before the change. {@code hash mod N}, the
 * non-consistent way, is the baseline.
 *
 * <pre>./ballast simulate --scenario disruption [--backends N] [--keys K] [--seed S]</pre>
 */
final class Disruption {

  private static final List<Algorithm> HASHING =
      List.of(Algorithm.RING_HASH, Algorithm.KETAMA, Algorithm.MAGLEV);

  private Disruption() {}

  /** Returns whether the flags ask for this scenario. */
  static boolean asked(String[] args) {
    for (int i = 0; i < args.length; i++) {
      if (args[i].equals("--scenario=disruption")
          || args[i].equals("--scenario") && i + 1 < args.length
          && args[i + 1].equals("disruption")) {
        return true;
      }
    }
    return false;
  }

  /** Runs the scenario with its flags; prints the table; returns the exit status. */
  static int run(String[] args, PrintStream out) throws IOException {
    int[] backends = {100};
    int[] keys = {1_000_000};
    long[] seed = {1};
    Flags.forEach(List.of(args), Set.of(), (flag, value) -> {
      switch (flag) {
        case "--scenario" -> { }
        case "--backends" -> backends[0] = Flags.parseInt(flag, value, 2);
        case "--keys" -> keys[0] = Flags.parseInt(flag, value, 1);
        case "--seed" -> seed[0] = Flags.parseLong(flag, value);
        default -> throw new IllegalArgumentException("flag: " + flag
            + " (expected for the disruption scenario: --backends, --keys, --seed)");
      }
    });
    SplittableRandom random = new SplittableRandom(seed[0]);
    String[] k = new String[keys[0]];
    for (int i = 0; i < k.length; i++) {
      k[i] = "key-" + Long.toString(random.nextLong() >>> 1, 36);
    }
    List<Endpoint> all = new ArrayList<>();
    for (int i = 0; i < backends[0]; i++) {
      all.add(Endpoint.of("10.0." + (i / 250) + "." + (i % 250 + 1), 8080, 1, Map.of()));
    }
    int leaving = random.nextInt(all.size());
    out.printf(Locale.ROOT, "scenario disruption: %d backends of weight 1, %d keys, backend %s"
        + " leaves; seed %d%n", all.size(), k.length, all.get(leaving).address(), seed[0]);
    out.printf(Locale.ROOT, "%-16s %8s %8s %13s %15s %16s%n", "balancer", "moved", "ideal",
        "among stayers", "largest / mean", "smallest / mean");
    for (Algorithm a : HASHING) {
      print(out, a.id(), measure(a, all, leaving, k));
    }
    print(out, "hash mod N", measureModulo(all.size(), leaving, k));
    return 0;
  }

  /** Where each key goes before and after: {moved, among stayers, largest, smallest, n}. */
  private static double[] measure(Algorithm a, List<Endpoint> all, int leaving, String[] keys) {
    HashBalancer<Integer> b = (HashBalancer<Integer>) a.<Integer>create(BalancerConfig.defaults());
    b.update(all, all::indexOf);
    int[] before = place(b, keys);
    List<Endpoint> rest = new ArrayList<>(all);
    rest.remove(leaving);
    b.update(rest, e -> -1);
    return compare(before, place(b, keys), leaving, all.size());
  }

  private static double[] measureModulo(int n, int leaving, String[] keys) {
    int[] before = new int[keys.length];
    int[] after = new int[keys.length];
    for (int i = 0; i < keys.length; i++) {
      long h = keys[i].hashCode() & 0x7FFFFFFFL;
      before[i] = (int) (h % n);
      int j = (int) (h % (n - 1));
      after[i] = j >= leaving ? j + 1 : j;
    }
    return compare(before, after, leaving, n);
  }

  private static int[] place(HashBalancer<Integer> b, String[] keys) {
    int[] at = new int[keys.length];
    for (int i = 0; i < keys.length; i++) {
      Node<Integer> node = b.pick(keys[i]);
      node.cancel();
      at[i] = node.value();
    }
    return at;
  }

  private static double[] compare(int[] before, int[] after, int leaving, int n) {
    int moved = 0;
    int stayers = 0;
    int[] counts = new int[n];
    for (int i = 0; i < before.length; i++) {
      counts[before[i]]++;
      if (before[i] != after[i]) {
        moved++;
        stayers += before[i] == leaving ? 0 : 1;
      }
    }
    Arrays.sort(counts);
    double mean = before.length / (double) n;
    return new double[] {moved / (double) before.length, stayers / (double) before.length,
        counts[n - 1] / mean, counts[0] / mean, n};
  }

  private static void print(PrintStream out, String name, double[] r) {
    out.printf(Locale.ROOT, "%-16s %7.2f%% %7.2f%% %12.2f%% %15.3f %16.3f%n", name, r[0] * 100,
        100 / r[4], r[1] * 100, r[2], r[3]);
  }
}
