package dev.ballast.core.subset.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.core.Endpoint;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class TransitionTest {

  private static final Endpoint SOME = Endpoint.of("10.0.0.1", 80);

  /**
   * One group, reused for 300 random patches of 1 to 400 dirty slots (so that transitions, their
   * slot lists and the probe table are reused, grown and trimmed): each time, the slots are
   * grouped exactly by (old ids, new ids, weight, had an endpoint, has one), in the order first
   * seen, and each transition's fields describe its change, with nothing left over from an
   * earlier use.
   */
  @Test
  void groupsLikeAModelWhileReusingTransitions() {
    int nk = 3;
    Transition.Group group = new Transition.Group(nk);
    SplittableRandom r = new SplittableRandom(11);
    for (int round = 0; round < 300; round++) {
      int n = 1 + r.nextInt(round % 50 == 0 ? 400 : 30);
      int[] dSlot = new int[n];
      Endpoint[] dOld = new Endpoint[n];
      Endpoint[] dNew = new Endpoint[n];
      boolean[] dWeight = new boolean[n];
      int[] oldIds = new int[n * nk];
      int[] newIds = new int[n * nk];
      Map<List<Object>, List<Integer>> model = new LinkedHashMap<>();
      for (int j = 0; j < n; j++) {
        dSlot[j] = j * 7 + r.nextInt(7);
        int kind = r.nextInt(10);
        dOld[j] = kind == 0 ? null : SOME; // added
        dNew[j] = kind == 1 ? null : SOME; // removed
        dWeight[j] = dOld[j] != null && dNew[j] != null && r.nextInt(4) == 0;
        List<Integer> o = new ArrayList<>();
        List<Integer> w = new ArrayList<>();
        for (int k = 0; k < nk; k++) {
          oldIds[j * nk + k] = r.nextInt(3) - 1;
          newIds[j * nk + k] = r.nextInt(3) - 1;
          o.add(dOld[j] == null ? null : oldIds[j * nk + k]);
          w.add(dNew[j] == null ? null : newIds[j * nk + k]);
        }
        List<Object> key = Arrays.asList(o, w, dWeight[j]);
        model.computeIfAbsent(key, x -> new ArrayList<>()).add(dSlot[j]);
      }
      group.group(dSlot, dOld, dNew, oldIds, newIds, dWeight);
      assertThat(group.size()).isEqualTo(model.size());
      int t = 0;
      for (Map.Entry<List<Object>, List<Integer>> e : model.entrySet()) {
        Transition tr = group.get(t++);
        @SuppressWarnings("unchecked")
        List<Integer> o = (List<Integer>) e.getKey().get(0);
        @SuppressWarnings("unchecked")
        List<Integer> w = (List<Integer>) e.getKey().get(1);
        assertThat(ids(tr.oldIds, nk)).isEqualTo(o);
        assertThat(ids(tr.newIds, nk)).isEqualTo(w);
        assertThat(tr.weight).isEqualTo(e.getKey().get(2));
        assertThat(Arrays.copyOf(tr.slots.values, tr.slots.size))
            .containsExactly(e.getValue().stream().mapToInt(Integer::intValue).toArray());
        for (int k = 0; k < nk; k++) {
          int ov = o.get(k) == null ? -1 : o.get(k);
          int nv = w.get(k) == null ? -1 : w.get(k);
          assertThat(has(tr.changed, k)).isEqualTo(ov != nv);
          assertThat(has(tr.oldHas, k)).isEqualTo(ov >= 0);
          assertThat(has(tr.newHas, k)).isEqualTo(nv >= 0);
        }
      }
      group.clear();
      assertThat(group.size()).isZero();
    }
  }

  private static List<Integer> ids(int[] ids, int nk) {
    List<Integer> out = new ArrayList<>();
    for (int k = 0; k < nk; k++) {
      out.add(ids == null ? null : ids[k]);
    }
    return out;
  }

  private static boolean has(long[] keys, int k) {
    return (keys[k >>> 6] & (1L << k)) != 0;
  }
}
