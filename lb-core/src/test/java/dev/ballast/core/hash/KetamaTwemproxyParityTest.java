package dev.ballast.core.hash;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.core.BalancerConfig;
import dev.ballast.core.Endpoint;
import dev.ballast.core.HashConfig;
import dev.ballast.core.KeyHash;
import dev.ballast.core.Node;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Ketama against a real twemproxy: keys are written through nutcracker ({@code distribution:
 * ketama}) to real memcached servers (weights 1, 2 and 3, with and without server names; every
 * key hash; weights 9, 3, 3, 4, 6), read back from each memcached, and every key must be where
 * Ballast's {@link Ketama} over the same servers puts it. One twemproxy serves every case, a pool
 * each, and every case writes keys of its own prefix.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class KetamaTwemproxyParityTest {

  private static final int[] WEIGHTS = {1, 2, 3};
  // with these weights, counting points in double precision gives some servers 4 more
  private static final int[] SINGLE_PRECISION_WEIGHTS = {9, 3, 3, 4, 6};
  private static final String[] NAMES = {"cache-a", "cache-b", "cache-c", "cache-d", "cache-e"};

  private static Twemproxy twemproxy;
  private static final List<Twemproxy.Pool> POOLS = new ArrayList<>();

  @BeforeAll
  static void start() throws IOException {
    POOLS.add(new Twemproxy.Pool("fnv1a_64", WEIGHTS, null));
    POOLS.add(new Twemproxy.Pool("fnv1a_64", SINGLE_PRECISION_WEIGHTS, null));
    for (KeyHash h : KeyHash.values()) {
      POOLS.add(new Twemproxy.Pool(h.id(), WEIGHTS, NAMES));
    }
    twemproxy = new Twemproxy(NAMES.length, POOLS);
  }

  @AfterAll
  static void stop() throws IOException {
    if (twemproxy != null) {
      twemproxy.close();
    }
  }

  @ParameterizedTest(name = "server names: {0}")
  @ValueSource(booleans = {false, true})
  void hundredThousandKeysAreWhereTwemproxyStoresThem(boolean named) throws Exception {
    int pool = named ? 2 + KeyHash.FNV1A_64.ordinal() : 0;
    assertParity(pool, keys("n" + named + "-", 100_000, 1, false));
  }

  @ParameterizedTest
  @EnumSource(KeyHash.class)
  void everyKeyHashPutsKeysWhereTwemproxysDoes(KeyHash hash) throws Exception {
    // non-ASCII keys too: twemproxy's fnv1*, one_at_a_time sign-extend such bytes
    assertParity(2 + hash.ordinal(), keys(hash.id() + "-", 3_000, hash.ordinal() + 2, true));
  }

  @Test
  void pointCountsAreTwemproxysSinglePrecisionOnes() throws Exception {
    assertParity(1, keys("sp-", 20_000, 99, false));
  }

  private static void assertParity(int poolIndex, List<String> keys) throws Exception {
    Twemproxy.Pool pool = POOLS.get(poolIndex);
    KeyHash hash = KeyHash.fromName(pool.hash());
    boolean named = pool.names() != null;
    twemproxy.setAll(poolIndex, keys);
    int[] ports = twemproxy.memcachedPorts();
    List<Endpoint> endpoints = new ArrayList<>();
    List<Set<String>> held = new ArrayList<>();
    for (int i = 0; i < pool.weights().length; i++) {
      endpoints.add(Endpoint.of("127.0.0.1", ports[i], pool.weights()[i],
          named ? Map.of("name", pool.names()[i]) : Map.of()));
      held.add(twemproxy.heldBy(i, keys));
    }
    Ketama<Integer> ketama = new Ketama<>(BalancerConfig.defaults(),
        HashConfig.builder().keyHash(hash).nameLabel(named ? "name" : null).build());
    ketama.update(endpoints, endpoints::indexOf);

    int mismatches = 0;
    List<String> examples = new ArrayList<>();
    int[] counts = new int[endpoints.size()];
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

  private static List<Integer> holders(List<Set<String>> held, String key) {
    List<Integer> h = new ArrayList<>();
    for (int i = 0; i < held.size(); i++) {
      if (held.get(i).contains(key)) {
        h.add(i);
      }
    }
    return h;
  }

  /** Distinct memcached keys of a prefix and 1 to 60 printable characters, some UTF-8 if asked. */
  private static List<String> keys(String prefix, int count, long seed, boolean unicode) {
    SplittableRandom r = new SplittableRandom(seed);
    Set<String> seen = new LinkedHashSet<>();
    String extra = "\u00e9\u00df\u4e2d\u0416";
    while (seen.size() < count) {
      int len = 1 + r.nextInt(60);
      StringBuilder sb = new StringBuilder(prefix);
      for (int i = 0; i < len; i++) {
        sb.append(unicode && r.nextInt(8) == 0 ? extra.charAt(r.nextInt(extra.length()))
            : (char) (33 + r.nextInt(94)));
      }
      seen.add(sb.toString());
    }
    return new ArrayList<>(seen);
  }
}
