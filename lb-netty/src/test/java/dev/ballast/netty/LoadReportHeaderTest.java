package dev.ballast.netty;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.core.Algorithm;
import dev.ballast.core.Balancer;
import dev.ballast.core.BalancerConfig;
import dev.ballast.core.Endpoint;
import dev.ballast.core.config.OptionException;
import dev.ballast.core.load.WeightedRoundRobinConfig;
import dev.ballast.core.loadaware.WeightedRoundRobin;
import dev.ballast.netty.http.HttpRequest;
import dev.ballast.netty.http.HttpResponse;
import dev.ballast.netty.outlier.OutlierDetection;
import dev.ballast.netty.testing.Nginx;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Envoy's {@code endpoint-load-metrics} header, sent by real nginx servers, read by the client
 * and fed to a balancer that weighs by reports (gRFC A58's weights on VNSWRR).
 */
class LoadReportHeaderTest {

  // servers of capacities 1 : 1 : 2 : 4: the same utilization at qps in those ratios, in the
  // header's text, binary and JSON forms and in the binary header
  private static final String[][] REPORTS = {
      {"endpoint-load-metrics", "TEXT cpu_utilization=0.5, rps_fractional=100"},
      {"endpoint-load-metrics", "BIN " + binary(0.5, 100)},
      {"endpoint-load-metrics", "JSON {\"cpu_utilization\": 0.5, \"rps_fractional\": 200}"},
      {"endpoint-load-metrics-bin", binary(0.5, 400)}};

  /**
   * The base64 of an ORCA {@code OrcaLoadReport} with {@code cpu_utilization} (field 1) and
   * {@code rps_fractional} (field 6), doubles in protobuf's wire format.
   */
  private final List<Nginx> servers = new ArrayList<>();

  @AfterEach
  void stopServers() throws Exception {
    for (Nginx n : servers) {
      n.close();
    }
  }

  /** Starts nginx servers s0 to s3, each sending its {@link #REPORTS} header. */
  private List<Endpoint> reportingServers() throws Exception {
    for (int i = 0; i < REPORTS.length; i++) {
      servers.add(Nginx.start(200, "s" + i, REPORTS[i][0], REPORTS[i][1]));
    }
    return servers.stream().map(Nginx::endpoint).toList();
  }

  private static String binary(double cpu, double rps) {
    ByteBuffer b = ByteBuffer.allocate(18).order(ByteOrder.LITTLE_ENDIAN);
    b.put((byte) (1 << 3 | 1)).putDouble(cpu).put((byte) (6 << 3 | 1)).putDouble(rps);
    return Base64.getEncoder().encodeToString(b.array());
  }

  @Test
  void weightedRoundRobinSharesCallsByTheServersReports() throws Exception {
    AtomicLong now = new AtomicLong();
    AtomicReference<WeightedRoundRobin<?>> made = new AtomicReference<>();
    BalancerFactory wrr = new BalancerFactory() {
      @Override
      public <T> Balancer<T> create(BalancerConfig config) {
        WeightedRoundRobin<T> b = new WeightedRoundRobin<>(config.toBuilder()
            .ticker(now::get).build(),
            WeightedRoundRobinConfig.builder().blackoutPeriod(Duration.ZERO).build());
        made.set(b);
        return b;
      }
    };
    try (BallastClient<HttpRequest, HttpResponse> client = BallastClient.http()
        .endpoints(reportingServers())
        .balancer(wrr)
        .timeout(Duration.ofSeconds(5))
        .outlierDetection(OutlierDetection.disabled())
        .build()) {
      // before any report: plain round robin
      assertThat(shares(client, 400)).containsExactly(
          Map.entry("s0", 100), Map.entry("s1", 100), Map.entry("s2", 100), Map.entry("s3", 100));
      now.addAndGet(Duration.ofSeconds(2).toNanos()); // past the weight update period
      made.get().updateWeights();
      assertThat(made.get().rejectedValues()).isZero();
      assertThat(shares(client, 800)).containsExactly(
          Map.entry("s0", 100), Map.entry("s1", 100), Map.entry("s2", 200), Map.entry("s3", 400));
    }
  }

  /**
   * gRPC's names by the configuration model: a blackout period of 0 s puts the reports' weights in
   * force at the first weight update, where the default 10 s would leave round robin.
   */
  @Test
  void optionsByNameSetTheBlackoutPeriod() throws Exception {
    AtomicLong now = new AtomicLong();
    BallastClient.Builder<HttpRequest, HttpResponse> b = BallastClient.http();
    ClientOptions.CLIENT.apply(b, Map.of(
        "endpoints", reportingServers().stream().map(Endpoint::toString).toList(),
        "balancer", "weighted_round_robin", "blackoutPeriod", "0s",
        "weightUpdatePeriod", "1s", "outlierDetection.enabled", false));
    b.balancerConfig(BalancerConfig.builder().ticker(now::get).build());
    try (BallastClient<HttpRequest, HttpResponse> client = b.build()) {
      assertThat(shares(client, 400)).containsExactly(
          Map.entry("s0", 100), Map.entry("s1", 100), Map.entry("s2", 100), Map.entry("s3", 100));
      now.addAndGet(Duration.ofSeconds(2).toNanos()); // past the update period, in blackout
      shares(client, 32); // one pick in 32 reads the clock and updates the weights
      assertThat(shares(client, 800)).containsExactly(
          Map.entry("s0", 100), Map.entry("s1", 100), Map.entry("s2", 200), Map.entry("s3", 400));
    }
  }

  @Test
  void aTypoInAnOptionNameNamesTheOption() {
    assertThatThrownBy(() -> ClientOptions.CLIENT.apply(BallastClient.http(),
        Map.of("balancer", "weighted_round_robin", "blackoutPeriode", "0s")))
        .isInstanceOf(OptionException.class)
        .hasMessageStartingWith("blackoutPeriode: unknown client option, did you mean"
            + " blackoutPeriod?");
    assertThatThrownBy(() -> ClientOptions.CLIENT.apply(BallastClient.http(),
        Map.of("weight-update-period", "-1s")))
        .isInstanceOf(OptionException.class)
        .hasMessage("weightUpdatePeriod: -1s (expected: > 0)");
  }

  /** Locality's options, read before the algorithm's, still wrap the balancer they make. */
  @Test
  void groupsApplyInTheModelsOrderWhateverTheKeysOrder() {
    Map<String, Object> options = new java.util.LinkedHashMap<>();
    options.put("locality.localZone", "a");
    options.put("blackoutPeriod", "0s");
    options.put("balancer", "weighted_round_robin");
    BallastClient.Builder<HttpRequest, HttpResponse> b = BallastClient.http();
    ClientOptions.CLIENT.apply(b, options);
    assertThat(b.loadReports.blackoutPeriod()).isZero();
    assertThat(b.balancerFactory.create(BalancerConfig.defaults()))
        .isInstanceOf(dev.ballast.core.locality.LocalityBalancer.class);
    BalancerFactory children = b.values("locality").get("children", null);
    assertThat(((WeightedRoundRobin<?>) children.create(BalancerConfig.defaults()))
        .weightConfig().blackoutPeriod()).isZero();
  }

  @Test
  void aBalancerThatReadsNoReportIgnoresTheHeader() throws Exception {
    try (Nginx a = Nginx.start(200, "a", "endpoint-load-metrics", "TEXT cpu_utilization=0.9");
        Nginx b = Nginx.start(200, "b", "endpoint-load-metrics", "TEXT rps_fractional=-1");
        BallastClient<HttpRequest, HttpResponse> client = BallastClient.http()
            .endpoints(List.of(a.endpoint(), b.endpoint()))
            .balancer(Algorithm.ROUND_ROBIN)
            .build()) {
      assertThat(shares(client, 100)).containsExactly(Map.entry("a", 50), Map.entry("b", 50));
    }
  }

  private static Map<String, Integer> shares(BallastClient<HttpRequest, HttpResponse> client,
      int calls) throws Exception {
    Map<String, Integer> seen = new TreeMap<>();
    for (int i = 0; i < calls; i++) { // one at a time: each report is in before the next pick
      HttpResponse r = client.call(HttpRequest.get("/")).get(10, TimeUnit.SECONDS);
      seen.merge(new String(r.body(), java.nio.charset.StandardCharsets.UTF_8), 1, Integer::sum);
    }
    return seen;
  }
}
