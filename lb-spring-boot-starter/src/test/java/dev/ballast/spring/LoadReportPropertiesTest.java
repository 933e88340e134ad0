package dev.ballast.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.netty.BallastClient;
import dev.ballast.netty.http.HttpRequest;
import dev.ballast.netty.http.HttpResponse;
import dev.ballast.netty.testing.Nginx;
import dev.ballast.spring.internal.InvalidBallastPropertyFailureAnalyzer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * gRPC's {@code weighted_round_robin} options by Spring properties alone ({@code
 * ballast.clients.<name>.blackout-period}...), over real nginx servers that send Envoy's {@code
 * endpoint-load-metrics} header for capacities 1 : 1 : 2 : 4.
 */
class LoadReportPropertiesTest {

  private static final String[] REPORTS = {
      "TEXT cpu_utilization=0.5, rps_fractional=100",
      "TEXT cpu_utilization=0.5, rps_fractional=100",
      "TEXT cpu_utilization=0.5, rps_fractional=200",
      "TEXT cpu_utilization=0.5, rps_fractional=400"};

  // the balancers' clock, moved by the test (no sleeping)
  private static final AtomicLong NOW = new AtomicLong();
  private static final List<Nginx> SERVERS = new ArrayList<>();

  private final ApplicationContextRunner runner = new ApplicationContextRunner()
      .withConfiguration(AutoConfigurations.of(BallastAutoConfiguration.class,
          BallastNettyAutoConfiguration.class, BallastGrpcAutoConfiguration.class));

  @BeforeAll
  static void start() throws Exception {
    for (int i = 0; i < REPORTS.length; i++) {
      SERVERS.add(Nginx.start(200, "s" + i, "endpoint-load-metrics", REPORTS[i]));
    }
  }

  @AfterAll
  static void stop() throws Exception {
    for (Nginx n : SERVERS) {
      n.close();
    }
  }

  /** Gives the clients' balancers the test's clock, nothing else. */
  @Configuration(proxyBeanMethods = false)
  static class TestClock {
    @Bean
    BallastClientCustomizer clock() {
      return (s, b) -> b.balancerConfig(s.balancerConfig().toBuilder().ticker(NOW::get).build());
    }
  }

  private String[] properties(String... more) {
    List<String> p = new ArrayList<>(List.of("ballast.clients.reports.protocol=http",
        "ballast.clients.reports.balancer=weighted-round-robin"));
    for (int i = 0; i < SERVERS.size(); i++) {
      p.add("ballast.clients.reports.endpoints[" + i + "]=" + SERVERS.get(i).endpoint());
    }
    p.addAll(List.of(more));
    return p.toArray(String[]::new);
  }

  @Test
  void aBlackoutPeriodOfZeroAppliesTheReportsAtTheFirstUpdate() {
    runner.withUserConfiguration(TestClock.class)
        .withPropertyValues(properties("ballast.clients.reports.blackout-period=0s",
            "ballast.clients.reports.weight-update-period=1s"))
        .run(ctx -> {
          assertThat(ctx).hasNotFailed();
          BallastClient<HttpRequest, HttpResponse> client =
              ctx.getBean(BallastClients.class).http("reports");
          assertThat(shares(client, 400)).containsExactly(Map.entry("s0", 100),
              Map.entry("s1", 100), Map.entry("s2", 100), Map.entry("s3", 100));
          NOW.addAndGet(Duration.ofSeconds(2).toNanos()); // past the update, in the 10 s default
          shares(client, 32); // one pick in 32 reads the clock and updates the weights
          assertThat(shares(client, 800)).containsExactly(Map.entry("s0", 100),
              Map.entry("s1", 100), Map.entry("s2", 200), Map.entry("s3", 400));
        });
  }

  @Test
  void aTypoInAnOptionNameStopsStartUpNamingIt() {
    runner.withPropertyValues(properties("ballast.clients.reports.blackout-periode=0s"))
        .run(ctx -> {
          assertThat(ctx).hasFailed();
          FailureAnalysis a =
              new InvalidBallastPropertyFailureAnalyzer().analyze(ctx.getStartupFailure());
          assertThat(a.getDescription())
              .contains("Invalid Ballast property 'ballast.clients.reports.blackout-periode'")
              .contains("did you mean ballast.clients.reports.blackout-period?");
        });
    runner.withPropertyValues(properties("ballast.clients.reports.error-utilization-penalty=-1"))
        .run(ctx -> {
          assertThat(ctx).hasFailed();
          FailureAnalysis a =
              new InvalidBallastPropertyFailureAnalyzer().analyze(ctx.getStartupFailure());
          assertThat(a.getDescription()).contains(
              "Invalid Ballast property 'ballast.clients.reports.error-utilization-penalty'");
          assertThat(a.getAction()).contains(">= 0, 0 for none");
        });
  }

  @Test
  void aGrpcChannelGetsTheOptionsUnderGrpcsNames() {
    runner.withPropertyValues(properties("ballast.clients.reports.blackout-period=0s",
            "ballast.clients.reports.enable-oob-load-report=true"))
        .run(ctx -> {
          assertThat(ctx).hasNotFailed();
          assertThat(ctx.getBean(BallastGrpcEndpoints.class).serviceConfig("reports"))
              .isEqualTo(Map.of("loadBalancingConfig", List.of(Map.of("weighted_round_robin",
                  Map.of("blackoutPeriod", "0s", "enableOobLoadReport", "true")))));
        });
  }

  private static Map<String, Integer> shares(BallastClient<HttpRequest, HttpResponse> client,
      int calls) throws Exception {
    Map<String, Integer> seen = new TreeMap<>();
    for (int i = 0; i < calls; i++) { // one at a time: each report is in before the next pick
      HttpResponse r = client.call(HttpRequest.get("/")).get(10, TimeUnit.SECONDS);
      seen.merge(new String(r.body(), StandardCharsets.UTF_8), 1, Integer::sum);
    }
    return seen;
  }
}
