package dev.ballast.core.locality;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.core.Algorithm;
import dev.ballast.core.Endpoint;
import dev.ballast.core.log.StateChangeLog;
import dev.ballast.core.testing.LogRecorder;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.IntFunction;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A local zone given for zone-aware routing that does nothing from the start (no caller shares,
 * a local zone the shares leave out, too few endpoints) is logged once with why, not silent; a
 * route that keeps every call is the configuration working and says nothing.
 */
class ZoneRoutingLogTest {

  /** Two endpoints in each of zones a, b and c, the first {@code healthy} healthy. */
  private static List<Endpoint> sixInThreeZones(int healthy) {
    return six(healthy, i -> "zone=" + (char) ('a' + i / 2));
  }

  private static List<Endpoint> six(int healthy, IntFunction<String> labels) {
    List<Endpoint> out = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      out.add(Endpoint.parse("10.0.0." + (i + 1) + ":80;" + labels.apply(i)
          + (i < healthy ? "" : ";health=unhealthy")));
    }
    return out;
  }

  /** What the balancer logs over each set in turn. */
  @SafeVarargs
  private static List<String> logOf(LocalityConfig config, List<Endpoint>... sets) {
    try (LogRecorder log = LogRecorder.on(StateChangeLog.LOGGER)) {
      LocalityBalancer<String> b = LocalityBalancer.<String>builder()
          .algorithm(Algorithm.ROUND_ROBIN).locality(config).build();
      b.stateLog(StateChangeLog.of("client zoned", () -> 0L));
      for (List<Endpoint> set : sets) {
        b.update(set, Endpoint::address);
      }
      return log.lines();
    }
  }

  private static LocalityConfig routed(String localZone) {
    return LocalityConfig.builder().localZone(localZone)
        .callerZones(Map.of("a", 1, "b", 1, "c", 1, "x", 1)).build();
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', value = {
      "no caller shares | | 6 | localZone given without callerZones",
      "a mistyped local zone | b=1,c=1,d=1 | 6 | callerZones {b=1.0, c=1.0, d=1.0} give the local"
          + " zone no share",
      "callers in one zone | a=1,b=0 | 6 | callerZones {a=1.0, b=0.0} give a share to one zone"
          + " only",
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
            .callerZones(Map.of("a", 1, "b", 1, "c", 1)).minClusterSize(1).build()).build();
    b.update(sixInThreeZones(6), Endpoint::address);
    assertThat(b.describe()).containsExactly("priority=0 healthy=100% degraded=0% panic=false",
        "zone=a local=100.0%");
    b.callerZones(Map.of("a", 2, "b", 1, "c", 1)); // half the callers, a third of the endpoints
    assertThat(b.describe()).last().isEqualTo("zone=a local=66.66%");
    b.update(sixInThreeZones(2), Endpoint::address); // a third healthy: panic ignores zones
    assertThat(b.describe()).containsExactly("priority=0 healthy=100% degraded=0% panic=true",
        "zone=a off (priority 0 in panic)");
  }

  @Test
  void endpointsInOneZoneOrNoneAtPriorityZeroAreSaid() {
    assertThat(logOf(routed("a"), six(6, i -> "zone=a"))).containsExactly("WARNING client"
        + " zoned: zone a: zone-aware routing off (priority 0's endpoints are in fewer than two"
        + " zones), its calls go to every zone by weight");
    assertThat(logOf(routed("a"), six(6, i -> "zone=" + (char) ('a' + i / 2) + ";priority=1")))
        .containsExactly("WARNING client zoned: zone a: zone-aware routing off (no endpoint at"
            + " priority 0), its calls go to every zone by weight");
  }

  @Test
  void routingThatTurnsOffLaterIsAChangeLoggedAtInfoWithWhy() {
    assertThat(logOf(routed("a"), sixInThreeZones(6), sixInThreeZones(5))).containsExactly(
        "INFO client zoned: zone a: zone-aware routing off (priority 0 has 5 healthy endpoints,"
            + " fewer than minClusterSize 6), its calls go to every zone by weight");
  }

  @Test
  void aLocalZoneWhoseEndpointsAreAllUnhealthySaysSoWhenItSpills() {
    LocalityConfig c = LocalityConfig.builder().localZone("c").minClusterSize(1)
        .callerZones(Map.of("a", 1, "b", 1, "c", 1)).build();
    assertThat(logOf(c, sixInThreeZones(4))).containsExactly("WARNING client zoned: zone c"
        + " spills: 0.0% of its calls stay local (none of its endpoints is healthy), the rest go"
        + " to other zones by their spare capacity");
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
        + " spills: 0.0% of its calls stay local (it has no endpoint at priority 0),"
        + " the rest go to other zones by their spare capacity");
  }
}
