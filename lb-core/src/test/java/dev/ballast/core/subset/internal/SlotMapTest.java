package dev.ballast.core.subset.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class SlotMapTest {

  @Test
  void behavesLikeAHashMapUnderRandomPutsAndRemoves() {
    for (long seed = 1; seed <= 20; seed++) {
      SplittableRandom r = new SplittableRandom(seed);
      SlotMap map = new SlotMap();
      Map<String, Integer> model = new HashMap<>();
      for (int op = 0; op < 20_000; op++) {
        String key = "10.0." + r.nextInt(40) + "." + r.nextInt(100) + ":80";
        int kind = r.nextInt(6);
        if (kind == 0) {
          map.ensureCapacity(r.nextInt(2 * model.size() + 2));
        } else if (kind == 1) {
          int v = r.nextInt(1_000_000);
          Integer had = model.putIfAbsent(key, v);
          assertThat(map.putIfAbsent(key, v)).isEqualTo(had == null ? SlotMap.ABSENT : had);
        } else if (kind <= 3) {
          map.remove(key);
          model.remove(key);
        } else {
          int v = r.nextInt(1_000_000);
          map.put(key, v);
          model.put(key, v);
        }
        if (op % 500 == 0) {
          assertThat(map.size()).isEqualTo(model.size());
          for (int i = 0; i < 40; i++) {
            String probe = "10.0." + i + "." + r.nextInt(100) + ":80";
            assertThat(map.get(probe)).isEqualTo(model.getOrDefault(probe, SlotMap.ABSENT));
          }
        }
      }
      for (Map.Entry<String, Integer> e : model.entrySet()) {
        assertThat(map.get(new String(e.getKey()))).isEqualTo(e.getValue());
      }
    }
  }

  @Test
  void keysWithEqualHashCodesAreKeptApartThroughRemovals() {
    // "Aa" and "BB" have one hash code, so every string of n such blocks shares it: each family
    // (a prefix) piles up at one home, and the runs of several families meet and wrap around
    List<String> keys = new ArrayList<>();
    for (String prefix : List.of("", "x", "yz", "10.0.0.1:", "q")) {
      for (int bits = 0; bits < 64; bits++) {
        StringBuilder b = new StringBuilder(prefix);
        for (int i = 0; i < 6; i++) {
          b.append((bits >> i & 1) == 0 ? "Aa" : "BB");
        }
        keys.add(b.toString());
      }
    }
    assertThat(keys.get(0).hashCode()).isEqualTo(keys.get(63).hashCode());
    for (long seed = 1; seed <= 10; seed++) {
      SplittableRandom r = new SplittableRandom(seed);
      SlotMap map = new SlotMap();
      Map<String, Integer> model = new HashMap<>();
      for (int op = 0; op < 5000; op++) {
        String key = keys.get(r.nextInt(keys.size()));
        if (r.nextInt(3) == 0) {
          map.remove(key);
          model.remove(key);
        } else {
          int v = r.nextInt(1000);
          map.put(key, v);
          model.put(key, v);
        }
        if (op % 100 == 0) {
          assertThat(map.size()).isEqualTo(model.size());
          for (String k : keys) {
            assertThat(map.get(new String(k))).as("seed %d op %d key %s", seed, op, k)
                .isEqualTo(model.getOrDefault(k, SlotMap.ABSENT));
          }
        }
      }
    }
  }
}
