package dev.ballast.core.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.core.BalancerConfig;
import dev.ballast.core.HashConfig;
import dev.ballast.core.KeyHash;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The codec between lb-core's configs and maps of names to values. */
class OptionSetTest {

  @Test
  void nestedDottedAndKebabKeysAreOneKey() {
    BalancerConfig nested = CoreOptions.BALANCER.decode(Map.of("slowStart",
        Map.of("window", "60s", "minWeightPercent", 0.1)));
    BalancerConfig dotted = CoreOptions.BALANCER.decode(Map.of("slow-start.window", "1m",
        "slow_start.min-weight-percent", "0.1"));
    assertThat(nested.slowStartWindow()).isEqualTo(Duration.ofMinutes(1));
    assertThat(dotted.slowStartWindow()).isEqualTo(Duration.ofMinutes(1));
    assertThat(dotted.slowStartMinWeightPercent()).isEqualTo(0.1);
  }

  @Test
  void encodeWritesWhatDecodeReadsBack() {
    BalancerConfig c = BalancerConfig.builder().decayTime(Duration.ofMillis(2500))
        .slowStart(Duration.ofSeconds(30), 2, 5).apertureCoordinate(3, 8).maxFails(2).build();
    Map<String, Object> json = CoreOptions.BALANCER.encode(c);
    assertThat(json).isEqualTo(Map.of("decayTime", "2500ms", "maxFails", 2.0,
        "slowStart", Map.of("window", "30s", "aggression", 2.0, "minWeightPercent", 5.0),
        "aperture", Map.of("clientIndex", 3.0, "clientCount", 8.0)));
    assertThat(CoreOptions.BALANCER.encode(CoreOptions.BALANCER.decode(json))).isEqualTo(json);
    HashConfig h = HashConfig.builder().keyHash(KeyHash.MD5).loadBound(1.25)
        .requestHashHeader("X-User").build();
    assertThat(CoreOptions.HASH.decode(CoreOptions.HASH.encode(h))).isEqualTo(h);
    assertThat(CoreOptions.BALANCER.encode(BalancerConfig.defaults())).isEmpty();
  }

  @Test
  void unknownKeysNameTheNearest() {
    assertThatThrownBy(() -> CoreOptions.BALANCER.decode(Map.of("decaytme", "1s")))
        .isInstanceOf(OptionException.class)
        .hasMessageStartingWith("decaytme: unknown balancer option, did you mean decayTime?"
            + " (expected: one of maxEffort, panicPick, decayTime,");
    assertThatThrownBy(() -> CoreOptions.BALANCER.decode(Map.of("slowStart",
        Map.of("window", "1m", "floor", 5.0))))
        .hasMessageStartingWith("slowStart.floor: unknown balancer option (expected:");
    assertThatThrownBy(() -> CoreOptions.BALANCER.decode(Map.of("zzz", 1)))
        .hasMessageStartingWith("zzz: unknown balancer option (expected: one of");
  }

  @Test
  void badValuesNameTheOptionTheValueAndTheExpectation() {
    assertThatThrownBy(() -> CoreOptions.BALANCER.decode(Map.of("decayTime", "0s")))
        .hasMessage("decayTime: 0s (expected: > 0)");
    assertThatThrownBy(() -> CoreOptions.BALANCER.decode(Map.of("decayTime", 10.0)))
        .hasMessage("decayTime: 10 (expected: a duration such as 10s, 250ms or 1.5m)");
    assertThatThrownBy(() -> CoreOptions.BALANCER.decode(Map.of("maxFails", 1.5)))
        .hasMessage("maxFails: 1.5 (expected: an integer)");
    assertThatThrownBy(() -> CoreOptions.BALANCER.decode(Map.of("decayTime", "9999999h")))
        .hasMessage("decayTime: 9999999h (expected: at most 292 years)");
    assertThatThrownBy(() -> CoreOptions.BALANCER.decode(
        Map.of("decayTime", "1".repeat(1_000_000) + "s")))
        .hasMessage("decayTime: a text of 1000001 characters (expected: a duration such as 10s,"
            + " 250ms or 1.5m)");
    assertThatThrownBy(() -> CoreOptions.HASH.decode(Map.of("keyHash", "md6")))
        .hasMessage("keyHash: md6 (did you mean md5? expected: one of fnv1a_64, fnv1_64,"
            + " fnv1a_32, fnv1_32, md5, crc32a, crc32, murmur, one_at_a_time)");
    Map<String, Object> both = new LinkedHashMap<>();
    both.put("maxFails", 2.0);
    both.put("max-fails", 3.0);
    assertThatThrownBy(() -> CoreOptions.BALANCER.decode(both))
        .hasMessage("maxFails: given twice, as maxFails and max-fails");
  }

  @Test
  void optionsCheckedTogetherAreNamed() {
    assertThatThrownBy(() -> CoreOptions.BALANCER.decode(Map.of("aperture",
        Map.of("clientIndex", 4.0, "clientCount", 4.0))))
        .isInstanceOf(OptionException.class)
        .hasMessage("aperture.clientIndex: 4 (expected: 0 to 3)");
  }

  @Test
  void everyOptionReadsItsExampleAndRefusesItsBadExample() {
    for (OptionSet<?, ?> set : java.util.List.of(CoreOptions.BALANCER, CoreOptions.HASH,
        CoreOptions.SUBSET)) {
      for (Option<?, ?, ?> o : set.options()) {
        Object good = set.decode(Map.of(o.name(), o.example()));
        assertThat(good).as(o.name()).isNotEqualTo(set.defaults());
        assertThatThrownBy(() -> set.decode(Map.of(o.name(), o.badExample())))
            .as(o.name()).isInstanceOf(OptionException.class)
            .hasMessageStartingWith(o.name() + ": ");
      }
    }
  }

  @Test
  void localityOptionsDecodeCallerZonesAsNumbersOrText() {
    dev.ballast.core.locality.LocalityConfig c = CoreOptions.LOCALITY.decode(Map.of(
        "local-zone", "a", "callerZones", Map.of("a", 3, "b", "1.5"), "panicThreshold", 0));
    assertThat(c.localZone()).isEqualTo("a");
    assertThat(c.callerZones()).isEqualTo(Map.of("a", 3.0, "b", 1.5));
    assertThat(c.zoneAware()).isTrue();
    assertThat(CoreOptions.LOCALITY.decode(CoreOptions.LOCALITY.encode(c))).isEqualTo(c);
    assertThat(CoreOptions.LOCALITY.encode(dev.ballast.core.locality.LocalityConfig.defaults()))
        .isEmpty();
    assertThatThrownBy(() -> CoreOptions.LOCALITY.decode(Map.of("callerZones",
        Map.of("a", "many")))).hasMessage("callerZones: a: many (expected: a number)");
    assertThatThrownBy(() -> CoreOptions.LOCALITY.decode(Map.of("localZone", "us east")))
        .hasMessageStartingWith("localZone: us east (expected: a zone as endpoints' zone label");
    assertThatThrownBy(() -> CoreOptions.LOCALITY.decode(Map.of("overprovisioningFactor", 0.9)))
        .hasMessage("overprovisioningFactor: 0.9 (expected: 1-100)");
  }
}
