package dev.ballast.bench.subset;

import dev.ballast.core.Endpoint;
import dev.ballast.core.Node;
import dev.ballast.core.ChildBalancer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The baseline: MOSN's subset build before its bitmap index. For each selector, list every
 * combination of the values its keys take, then scan every host for each combination:
 * O(M * N * K) for M subsets, N hosts and K keys per selector.
 */
public final class NaiveSubsetBuilder {

  private NaiveSubsetBuilder() {}

  /**
   * Makes one node per host with the prototype balancer (as the selector does), then each
   * selector's non-empty subsets as lists of nodes, keyed by their labels.
   */
  public static Map<Map<String, String>, List<Node<String>>> build(List<Endpoint> hosts,
      List<List<String>> selectors, ChildBalancer<String> prototype) {
    List<Node<String>> nodes = new ArrayList<>(hosts.size());
    for (Endpoint e : hosts) {
      nodes.add(prototype.newNode(e, e.address()));
    }
    return subsets(nodes, selectors);
  }

  /** Builds the subsets of existing nodes. */
  public static Map<Map<String, String>, List<Node<String>>> subsets(List<Node<String>> nodes,
      List<List<String>> selectors) {
    Map<Map<String, String>, List<Node<String>>> out = new HashMap<>();
    for (List<String> keys : selectors) {
      List<List<String>> valuesPerKey = new ArrayList<>();
      for (String k : keys) {
        Set<String> values = new LinkedHashSet<>();
        for (Node<String> n : nodes) {
          String v = n.endpoint().label(k);
          if (v != null) {
            values.add(v);
          }
        }
        valuesPerKey.add(new ArrayList<>(values));
      }
      combine(keys, valuesPerKey, 0, new HashMap<>(), nodes, out);
    }
    return out;
  }

  private static void combine(List<String> keys, List<List<String>> valuesPerKey, int k,
      Map<String, String> combo, List<Node<String>> nodes,
      Map<Map<String, String>, List<Node<String>>> out) {
    if (k == keys.size()) {
      List<Node<String>> members = new ArrayList<>();
      for (Node<String> n : nodes) {
        boolean match = true;
        for (Map.Entry<String, String> kv : combo.entrySet()) {
          if (!kv.getValue().equals(n.endpoint().label(kv.getKey()))) {
            match = false;
            break;
          }
        }
        if (match) {
          members.add(n);
        }
      }
      if (!members.isEmpty()) {
        out.put(Map.copyOf(combo), members);
      }
      return;
    }
    for (String v : valuesPerKey.get(k)) {
      combo.put(keys.get(k), v);
      combine(keys, valuesPerKey, k + 1, combo, nodes, out);
    }
    combo.remove(keys.get(k));
  }
}
