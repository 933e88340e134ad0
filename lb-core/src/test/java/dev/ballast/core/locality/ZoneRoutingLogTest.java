package dev.ballast.core.locality;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.core.Algorithm;
import dev.ballast.core.Endpoint;
import dev.ballast.core.log.StateChangeLog;
import dev.ballast.core.testing.LogRecorder;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A local zone given for zone-aware routing that does nothing from the start (no caller shares,
 * a local zone the shares leave out, too few endpoints) is logged once with why, not silent; a
 * route that keeps every call is the configuration working and says nothing.
 */
class ZoneRoutingLogTest {

  /** Two endpoints in each of zones a, b and c, healthy. */
  private static List<Endpoint> sixInThreeZones(int healthy) {
    List<Endpoint> out = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      out.add(Endpoint.parse("10.0.0." + (i + 1) + ":80;zone=" + (char) ('a' + i / 2)
          + (i < healthy ? "" : ";health=unhealthy")));
    }
    return out;
  }

  private static List<String> logOf(LocalityConfig config, List<Endpoint> endpoints) {
    try (LogRecorder log = LogRecorder.on(StateChangeLog.LOGGER)) {
      LocalityBalancer<String> b = LocalityBalancer.<String>builder()
          .algorithm(Algorithm.ROUND_ROBIN).locality(config).build();
      b.stateLog(StateChangeLog.of("client zoned", () -> 0L));
      b.update(endpoints, Endpoint::address);
      return log.lines();
    }
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', value = {
      "no caller shares | | 6 | localZone given without callerZones",
      "a mistyped local zone | b=1,c=1,d=1 | 6 | callerZones {b=1.0, c=1.0, d=1.0} give the local"
          + " zone no share",
      "callers in one zone | a=1 | 6 | callerZones {a=1.0} name one zone",
      "too few healthy | a=1,b=1 | 5 | priority 0 has 5 healthy endpoints, fewer than"
          + " minClusterSize 6"})
  void aLocalZoneThatRoutesNothingFromTheStartIsLoggedWithWhy(String what, String callers,
      int healthy, String why) {
    LocalityConfig.Builder c = LocalityConfig.builder().localZone("a");
    if (callers != null) {
      Map<String, Integer> shares = new java.util.TreeMap<>();
      for (String s : callers.split(",")) {
        shares.put(s.split("=")[0], Integer.parseInt(s.split("=")[1]));
      }
      c.callerZones(shares);
    }
    assertThat(logOf(c.build(), sixInThreeZones(healthy))).containsExactly("WARNING client"
        + " zoned: zone a: zone-aware routing off (" + why + "), its calls go to every zone by"
        + " weight");
    // and the status says so while it lasts
    LocalityBalancer<String> b = LocalityBalancer.<String>builder()
        .algorithm(Algorithm.ROUND_ROBIN).locality(c.build()).build();
    b.update(sixInThreeZones(healthy), Endpoint::address);
    assertThat(b.describe()).last().isEqualTo("zone=a off (" + why + ")");
  }

  @Test
  void theStatusSaysHowMuchStaysLocal() {
    LocalityBalancer<String> b = LocalityBalancer.<String>builder()
        .algorithm(Algorithm.ROUND_ROBIN).locality(LocalityConfig.builder().localZone("a")
            .callerZones(Map.of("a", 1, "b", 1, "c", 1)).build()).build();
    b.update(sixInThreeZones(6), Endpoint::address);
    assertThat(b.describe()).containsExactly("priority=0 healthy=100% degraded=0% panic=false",
        "zone=a local=100.0%");
    b.callerZones(Map.of("a", 2, "b", 1, "c", 1)); // half the callers, a third of the endpoints
    assertThat(b.describe()).last().isEqualTo("zone=a local=66.66%");
  }

  @Test
  void aRouteThatKeepsEveryCallLocalSaysNothing() {
    LocalityConfig c = LocalityConfig.builder().localZone("a")
        .callerZones(Map.of("a", 1, "b", 1, "c", 1)).build();
    assertThat(logOf(c, sixInThreeZones(6))).isEmpty();
  }

  @Test
  void aLocalZoneWithoutEndpointsSaysSoWhenItSpills() {
    LocalityConfig c = LocalityConfig.builder().localZone("x")
        .callerZones(Map.of("x", 1, "b", 1, "c", 1)).build();
    assertThat(logOf(c, sixInThreeZones(6))).containsExactly("WARNING client zoned: zone x"
        + " spills: 0.0% of its calls stay local (it has no healthy endpoint at priority 0),"
        + " the rest go to other zones by their spare capacity");
  }
}
