package dev.ballast.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Ketama against a real twemproxy: keys are written through nutcracker ({@code distribution:
 * ketama}) to real memcached servers (weights 1, 2 and 3, with and without server names; every
 * key hash; weights 9, 3, 3, 4, 6), read back from each memcached, and every key must be where
 * Ballast's {@link Ketama} over the same servers puts it.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class KetamaTwemproxyParityTest {

  private static final int[] WEIGHTS = {1, 2, 3};

  @ParameterizedTest(name = "server names: {0}")
  @ValueSource(booleans = {false, true})
  void hundredThousandKeysAreWhereTwemproxyStoresThem(boolean named) throws Exception {
    assertParity(WEIGHTS, named, KeyHash.FNV1A_64, keys(100_000, 1, false));
  }

  @ParameterizedTest
  @EnumSource(KeyHash.class)
  void everyKeyHashPutsKeysWhereTwemproxysDoes(KeyHash hash) throws Exception {
    // non-ASCII keys too: twemproxy's fnv1*, one_at_a_time sign-extend such bytes
    assertParity(WEIGHTS, true, hash, keys(3_000, hash.ordinal() + 2, true));
  }

  @org.junit.jupiter.api.Test
  void pointCountsAreTwemproxysSinglePrecisionOnes() throws Exception {
    // with these weights, counting points in double precision gives some servers 4 more
    assertParity(new int[] {9, 3, 3, 4, 6}, false, KeyHash.FNV1A_64, keys(20_000, 99, false));
  }

  private static void assertParity(int[] weights, boolean named, KeyHash hash,
      List<String> keys) throws Exception {
    String[] names = new String[weights.length];
    for (int i = 0; i < names.length; i++) {
      names[i] = "cache-" + (char) ('a' + i);
    }
    try (Twemproxy twemproxy = new Twemproxy(weights, named ? names : null, hash.id())) {
      twemproxy.setAll(keys);
      int[] ports = twemproxy.memcachedPorts();
      List<Endpoint> endpoints = new ArrayList<>();
      List<Set<String>> held = new ArrayList<>();
      for (int i = 0; i < ports.length; i++) {
        endpoints.add(Endpoint.of("127.0.0.1", ports[i], weights[i],
            named ? Map.of("name", names[i]) : Map.of()));
        held.add(twemproxy.heldBy(i, keys));
      }
      Ketama<Integer> ketama = new Ketama<>(BalancerConfig.defaults(),
          HashConfig.builder().keyHash(hash).nameLabel(named ? "name" : null).build());
      ketama.update(endpoints, endpoints::indexOf);

      int mismatches = 0;
      List<String> examples = new ArrayList<>();
      int[] counts = new int[ports.length];
      for (String key : keys) {
        Node<Integer> node = ketama.pick(key);
        node.cancel();
        int ours = node.value();
        counts[ours]++;
        if (!held.get(ours).contains(key)) {
          mismatches++;
          if (examples.size() < 5) {
            examples.add(key + " -> ours " + ours + ", held by " + holders(held, key));
          }
        }
      }
      assertThat(held.stream().mapToInt(Set::size).sum()).as("keys stored once each")
          .isEqualTo(keys.size());
      assertThat(mismatches).as("%s keys not where twemproxy stored them, e.g. %s",
          hash.id(), examples).isZero();
      if (hash != KeyHash.CRC32) { // its 15-bit hashes all fall before the continuum's first points
        assertThat(counts).as("every server holds keys").doesNotContain(0);
      }
    }
  }

  private static List<Integer> holders(List<Set<String>> held, String key) {
    List<Integer> h = new ArrayList<>();
    for (int i = 0; i < held.size(); i++) {
      if (held.get(i).contains(key)) {
        h.add(i);
      }
    }
    return h;
  }

  /** Distinct memcached keys of 1 to 60 printable characters; some with UTF-8 if asked. */
  private static List<String> keys(int count, long seed, boolean unicode) {
    SplittableRandom r = new SplittableRandom(seed);
    Set<String> seen = new java.util.LinkedHashSet<>();
    String extra = "\u00e9\u00df\u4e2d\u0416";
    while (seen.size() < count) {
      int len = 1 + r.nextInt(60);
      StringBuilder sb = new StringBuilder(len);
      for (int i = 0; i < len; i++) {
        sb.append(unicode && r.nextInt(8) == 0 ? extra.charAt(r.nextInt(extra.length()))
            : (char) (33 + r.nextInt(94)));
      }
      seen.add(sb.toString());
    }
    return new ArrayList<>(seen);
  }
}
