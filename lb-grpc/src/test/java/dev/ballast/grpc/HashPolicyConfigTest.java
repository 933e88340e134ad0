package dev.ballast.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.core.KeyHash;
import dev.ballast.grpc.internal.HashPolicyConfig;
import io.grpc.LoadBalancerProvider;
import io.grpc.LoadBalancerRegistry;
import io.grpc.NameResolver.ConfigOrError;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Service-config parsing of ballast_ring_hash, ketama and maglev: fields, defaults, errors. */
class HashPolicyConfigTest {

  private static LoadBalancerProvider provider(String name) {
    LoadBalancerProvider p = LoadBalancerRegistry.getDefaultRegistry().getProvider(name);
    assertThat(p).as("provider %s registered", name).isNotNull();
    return p;
  }

  private static HashPolicyConfig parsed(String policy, Map<String, ?> json) {
    ConfigOrError c = provider(policy).parseLoadBalancingPolicyConfig(json);
    assertThat(c.getError()).as("error for %s", json).isNull();
    return (HashPolicyConfig) c.getConfig();
  }

  @Test
  void policiesAreRegisteredUnderNamesOfTheirOwn() {
    assertThat(provider("ballast_ring_hash")).isInstanceOf(
        BallastRingHashLoadBalancerProvider.class);
    assertThat(provider("ketama")).isInstanceOf(KetamaLoadBalancerProvider.class);
    assertThat(provider("maglev")).isInstanceOf(MaglevLoadBalancerProvider.class);
  }

  @Test
  void fieldsReachLbCore() {
    HashPolicyConfig ring = parsed("ballast_ring_hash", Map.of("minRingSize", 64.0,
        "maxRingSize", 128.0, "requestHashHeader", "X-User", "loadBound", 1.5));
    HashPolicyConfig ketama = parsed("ketama", Map.of("hash", "md5", "nameLabel", "name"));
    HashPolicyConfig maglev = parsed("maglev", Map.of("tableSize", 251.0));

    assertThat(ring.hashConfig().minRingSize()).isEqualTo(64);
    assertThat(ring.hashConfig().maxRingSize()).isEqualTo(128);
    assertThat(ring.hashConfig().loadBound()).isEqualTo(1.5);
    assertThat(ring.requestHashHeader()).isEqualTo("x-user");
    assertThat(ketama.hashConfig().keyHash()).isEqualTo(KeyHash.MD5);
    assertThat(ketama.hashConfig().nameLabel()).isEqualTo("name");
    assertThat(ketama.requestHashHeader()).isNull();
    assertThat(maglev.hashConfig().tableSize()).isEqualTo(251);
    assertThat(maglev.hashConfig().loadBound()).isZero();
    // equal configs keep the balancer (and its nodes' state) across resolutions
    assertThat(parsed("maglev", Map.of("tableSize", 251.0))).isEqualTo(maglev);
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "ballast_ring_hash|{\"tableSize\": 7}|ballast_ring_hash config: unknown field 'tableSize'"
          + " (expected: one of [loadBound, maxRingSize, minRingSize, requestHashHeader])",
      "ballast_ring_hash|{\"minRingSize\": 9000, \"maxRingSize\": 100}|ballast_ring_hash config:"
          + " minRingSize: 9000 (expected: <= maxRingSize 100)",
      "maglev|{\"tableSize\": 1000}|maglev config: tableSize: 1000 (expected: a prime from 2 to"
          + " 16777216, e.g. 65537)",
      "maglev|{\"loadBound\": \"high\"}|maglev config: loadBound: high (expected: a number, 0 for"
          + " off or at least 1, e.g. 1.25)",
      "ketama|{\"hash\": \"crc16\"}|ketama config: hash: crc16 (expected: one of fnv1a_64,"
          + " fnv1_64, fnv1a_32, fnv1_32, md5, crc32a, crc32, murmur, one_at_a_time)",
      "ketama|{\"requestHashHeader\": \"x-key-bin\"}|ketama config: requestHashHeader:"
          + " \"x-key-bin\" (expected: a header name, not a pseudo-header nor a -bin one)"})
  void badFieldsAreNamedNeverThrown(String policy, String json, String message) throws Exception {
    @SuppressWarnings("unchecked")
    Map<String, ?> raw = (Map<String, ?>) io.grpc.internal.JsonParser.parse(json);
    ConfigOrError c = provider(policy).parseLoadBalancingPolicyConfig(raw);

    assertThat(c.getConfig()).isNull();
    assertThat(c.getError().getDescription()).isEqualTo(message);
  }
}
