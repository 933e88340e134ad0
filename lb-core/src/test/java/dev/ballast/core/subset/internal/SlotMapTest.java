package dev.ballast.core.subset.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
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
}
