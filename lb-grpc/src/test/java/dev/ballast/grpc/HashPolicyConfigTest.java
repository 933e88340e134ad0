package dev.ballast.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.core.KeyHash;
import dev.ballast.grpc.internal.PolicyConfig;
import io.grpc.LoadBalancerProvider;
import io.grpc.LoadBalancerRegistry;
import io.grpc.NameResolver.ConfigOrError;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Service-config parsing of ring_hash, ketama and maglev: fields, defaults, errors. */
class HashPolicyConfigTest {

  private static LoadBalancerProvider provider(String name) {
    LoadBalancerProvider p = LoadBalancerRegistry.getDefaultRegistry().getProvider(name);
    assertThat(p).as("provider %s registered", name).isNotNull();
    return p;
  }

  private static PolicyConfig parsed(String policy, Map<String, ?> json) {
    ConfigOrError c = provider(policy).parseLoadBalancingPolicyConfig(json);
    assertThat(c.getError()).as("error for %s", json).isNull();
    return (PolicyConfig) c.getConfig();
  }

  @Test
  void policiesAreRegisteredUnderNamesOfTheirOwn() {
    assertThat(provider("ring_hash")).isInstanceOf(RingHashLoadBalancerProvider.class);
    // the former name still works
    assertThat(provider("ballast_ring_hash")).isInstanceOf(
        BallastRingHashLoadBalancerProvider.class);
    assertThat(provider("ketama")).isInstanceOf(KetamaLoadBalancerProvider.class);
    assertThat(provider("maglev")).isInstanceOf(MaglevLoadBalancerProvider.class);
  }

  @Test
  void fieldsReachLbCore() {
    PolicyConfig ring = parsed("ring_hash", Map.of("minRingSize", 64.0,
        "maxRingSize", 128.0, "requestHashHeader", "X-User", "loadBound", 1.5));
    PolicyConfig ketama = parsed("ketama", Map.of("keyHash", "md5", "nameLabel", "name"));
    PolicyConfig maglev = parsed("maglev", Map.of("tableSize", 251.0));

    assertThat(ring.hash().minRingSize()).isEqualTo(64);
    assertThat(ring.hash().maxRingSize()).isEqualTo(128);
    assertThat(ring.hash().loadBound()).isEqualTo(1.5);
    assertThat(ring.hash().requestHashHeader()).isEqualTo("x-user");
    assertThat(ketama.hash().keyHash()).isEqualTo(KeyHash.MD5);
    assertThat(ketama.hash().nameLabel()).isEqualTo("name");
    assertThat(ketama.hash().requestHashHeader()).isNull();
    assertThat(maglev.hash().tableSize()).isEqualTo(251);
    assertThat(maglev.hash().loadBound()).isZero();
    // equal configs keep the balancer (and its nodes' state) across resolutions
    assertThat(parsed("maglev", Map.of("tableSize", 251.0))).isEqualTo(maglev);
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "ring_hash|{\"tableSiz\": 7}|ring_hash config: tableSiz: unknown hash option, did you"
          + " mean tableSize? (expected: one of requestHashHeader, loadBound, minRingSize,"
          + " maxRingSize, tableSize, keyHash, nameLabel)",
      "ring_hash|{\"minRingSize\": 9000, \"maxRingSize\": 100}|ring_hash config:"
          + " minRingSize: 9000 (expected: <= maxRingSize 100)",
      "maglev|{\"tableSize\": 1000}|maglev config: tableSize: 1000 (expected: a prime from 2 to"
          + " 16777216, e.g. 65537)",
      "maglev|{\"loadBound\": \"high\"}|maglev config: loadBound: high (expected: a number)",
      "ketama|{\"keyHash\": \"crc16\"}|ketama config: keyHash: crc16 (did you mean crc32?"
          + " expected: one of fnv1a_64, fnv1_64, fnv1a_32, fnv1_32, md5, crc32a, crc32, murmur,"
          + " one_at_a_time)",
      "ketama|{\"requestHashHeader\": \"x-key-bin\"}|ketama config: requestHashHeader:"
          + " x-key-bin (expected: a header name of letters, digits, '-', '_' or '.', not a"
          + " pseudo-header nor a -bin one)"})
  void badFieldsAreNamedNeverThrown(String policy, String json, String message) throws Exception {
    @SuppressWarnings("unchecked")
    Map<String, ?> raw = (Map<String, ?>) io.grpc.internal.JsonParser.parse(json);
    ConfigOrError c = provider(policy).parseLoadBalancingPolicyConfig(raw);

    assertThat(c.getConfig()).isNull();
    assertThat(c.getError().getDescription()).isEqualTo(message);
  }
}
