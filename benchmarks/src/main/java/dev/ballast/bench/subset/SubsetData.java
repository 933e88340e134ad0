package dev.ballast.bench.subset;

import dev.ballast.core.Endpoint;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * The seeded data sets of the subset benchmarks, after MOSN's subset-build benchmark: 8000 hosts
 * with the labels {@code zone}, {@code physics}, {@code mosn_aig}, {@code mosn_version}, and 15
 * selectors (every non-empty combination of the four keys).
 */
public final class SubsetData {

  /** The four label keys. */
  public static final List<String> KEYS = List.of("zone", "physics", "mosn_aig", "mosn_version");

  private SubsetData() {}

  /** The 15 selectors: every non-empty combination of {@link #KEYS}. */
  public static List<List<String>> selectors() {
    List<List<String>> out = new ArrayList<>();
    for (int mask = 1; mask < 16; mask++) {
      List<String> s = new ArrayList<>();
      for (int k = 0; k < 4; k++) {
        if ((mask & (1 << k)) != 0) {
          s.add(KEYS.get(k));
        }
      }
      out.add(s);
    }
    return out;
  }

  /**
   * Returns the hosts of a data set: {@code mosn} (zone one of 3 at random, the other three keys
   * constant, as in MOSN's benchmark) or {@code harder} (every key one of 3 values at random).
   */
  public static List<Endpoint> hosts(String dataSet, int count, long seed) {
    SplittableRandom r = new SplittableRandom(seed);
    boolean harder = dataSet.equals("harder");
    if (!harder && !dataSet.equals("mosn")) {
      throw new IllegalArgumentException("dataSet: " + dataSet + " (expected: mosn or harder)");
    }
    List<Endpoint> out = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      out.add(Endpoint.of(host(i), 12200, 1, labels(r, harder)));
    }
    return out;
  }

  /** Returns a copy of the hosts where {@code changed} hosts at random got new random labels. */
  public static List<Endpoint> relabel(List<Endpoint> hosts, String dataSet, int changed,
      long seed) {
    SplittableRandom r = new SplittableRandom(seed);
    boolean harder = dataSet.equals("harder");
    List<Endpoint> out = new ArrayList<>(hosts);
    int done = 0;
    while (done < changed) {
      int i = r.nextInt(out.size());
      Endpoint e = out.get(i);
      if (e != hosts.get(i)) {
        continue;
      }
      Endpoint next = e.withLabels(labels(r, harder));
      if (next.equals(e)) {
        // the mosn set has 3 zones: force a change of zone
        Map<String, String> l = new HashMap<>(e.labels());
        l.put("zone", e.label("zone").equals("zone-0") ? "zone-1" : "zone-0");
        next = e.withLabels(l);
      }
      out.set(i, next);
      done++;
    }
    return out;
  }

  /** Returns the i-th host's IPv4 address in 10.0.0.0/8 ({@code 10.0.1.4} for 260). */
  public static String host(int i) {
    return "10." + (i >> 16) + "." + ((i >> 8) & 0xff) + "." + (i & 0xff);
  }

  private static Map<String, String> labels(SplittableRandom r, boolean harder) {
    Map<String, String> m = new HashMap<>();
    m.put("zone", "zone-" + r.nextInt(3));
    m.put("physics", harder ? "physics-" + r.nextInt(3) : "physics-0");
    m.put("mosn_aig", harder ? "aig-" + r.nextInt(3) : "aig-0");
    m.put("mosn_version", harder ? "1.0." + r.nextInt(3) : "1.0.0");
    return m;
  }
}
