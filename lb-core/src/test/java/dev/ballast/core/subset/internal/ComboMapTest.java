package dev.ballast.core.subset.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class ComboMapTest {

  /**
   * Random adds, removes and lookups against a HashMap model, with value ids that stay small
   * (the direct array serves every lookup), that grow past its limit (back to hashing only),
   * and in between (the direct array widened several times first).
   */
  @Test
  void behavesLikeAHashMapInDirectAndHashedModes() {
    int[] maxIds = {3, 20, 200};
    for (int maxId : maxIds) {
      for (long seed = 1; seed <= 10; seed++) {
        SplittableRandom r = new SplittableRandom(seed * 31 + maxId);
        // a selector over index keys 1, 3 and 4 of five
        int[] pos = {1, 3, 4};
        ComboMap<String> map = new ComboMap<>(pos);
        Map<List<Integer>, ComboMap.Entry<String>> model = new HashMap<>();
        for (int op = 0; op < 5000; op++) {
          int[] slotIds = new int[5];
          for (int k = 0; k < slotIds.length; k++) {
            slotIds[k] = r.nextInt(maxId);
          }
          List<Integer> key = List.of(slotIds[1], slotIds[3], slotIds[4]);
          ComboMap.Entry<String> found = map.get(slotIds);
          assertThat(found).isSameAs(model.get(key));
          if (found == null && r.nextInt(3) != 0) {
            ComboMap.Entry<String> e = map.add(slotIds);
            assertThat(e.ids).containsExactly(slotIds[1], slotIds[3], slotIds[4]);
            model.put(key, e);
          } else if (found != null && r.nextInt(3) == 0) {
            map.remove(found);
            model.remove(key);
          }
          if (op == 2500 && seed == 1) {
            map.clear();
            model.clear();
          }
        }
        // every entry still found, by ids in a fresh array
        for (Map.Entry<List<Integer>, ComboMap.Entry<String>> e : new ArrayList<>(
            model.entrySet())) {
          int[] slotIds = {-1, e.getKey().get(0), 7, e.getKey().get(1), e.getKey().get(2)};
          assertThat(map.get(slotIds)).isSameAs(e.getValue());
        }
      }
    }
  }
}
