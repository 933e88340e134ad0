package dev.ballast.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.spring.internal.InvalidBallastPropertyFailureAnalyzer;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

/** Every kind of bad property stops start-up with a report naming it and the expected form. */
@ExtendWith(OutputCaptureExtension.class)
class InvalidPropertiesTest {

  private static final String OK = "ballast.clients.orders.endpoints[0]=10.0.0.1:7000";

  private final ApplicationContextRunner runner = new ApplicationContextRunner()
      .withConfiguration(AutoConfigurations.of(BallastAutoConfiguration.class,
          BallastSpringCloudAutoConfiguration.class));

  static Stream<Arguments> invalidProperties() {
    return Stream.of(
        bad("ballast.clients.orders.endpoints[1]", "port: x (expected: 1-65535)",
            "host:port[;weight=N][;key=value...]",
            OK, "ballast.clients.orders.endpoints[1]=10.0.0.2:x"),
        bad("ballast.clients.orders.endpoints[0]", "weight: -1 (expected: > 0)",
            "host:port[;weight=N][;key=value...]",
            "ballast.clients.orders.endpoints[0]=10.0.0.1:80;weight=-1"),
        bad("ballast.clients.orders.endpoints[1]", "already given in endpoints[0]",
            "each address once",
            OK, "ballast.clients.orders.endpoints[1]=10.0.0.1:7000;zone=b"),
        bad("ballast.clients.orders.endpoints", "no endpoint given", "at least one endpoint",
            "ballast.clients.orders.balancer=vnswrr"),
        bad("ballast.clients.orders.discovery", "two sources given",
            "at most one of discovery.zookeeper, discovery.etcd, discovery.dns",
            "ballast.clients.orders.discovery.etcd.endpoints=10.0.0.6:2379",
            "ballast.clients.orders.discovery.etcd.prefix=/services/orders/",
            "ballast.clients.orders.discovery.dns.name=orders.internal:8080"),
        bad("ballast.clients.orders.discovery.zookeeper.path", "missing",
            "e.g. /services/orders",
            "ballast.clients.orders.discovery.zookeeper.connect=10.0.0.5:2181"),
        bad("ballast.clients.orders.discovery.etcd.endpoints", "not host:port[,host:port...]",
            "e.g. 10.0.0.5:2181,10.0.0.6:2181",
            "ballast.clients.orders.discovery.etcd.endpoints=http://10.0.0.6:2379",
            "ballast.clients.orders.discovery.etcd.prefix=/services/orders/"),
        bad("ballast.clients.orders.discovery.dns.name", "no name with a port or SRV name",
            "orders.internal:8080 or _grpc._tcp.orders.internal",
            "ballast.clients.orders.discovery.dns.name=orders.internal"),
        bad("ballast.clients.orders.discovery", "endpoints given too",
            "either endpoints or a discovery source",
            OK, "ballast.clients.orders.discovery.dns.name=orders.internal:8080"),
        bad("ballast.clients.orders.balancer", "unknown balancer",
            "one of vnswrr, swrr, round-robin, weighted-random, least-loaded, p2c-peak-ewma,"
                + " aperture",
            OK, "ballast.clients.orders.balancer=fastest"),
        bad("ballast.clients.orders.failure-penalty", "out of range", "a number >= 1",
            OK, "ballast.clients.orders.failure-penalty=0.5"),
        bad("ballast.clients.orders.slow-start.window", "negative", "a duration >= 0",
            OK, "ballast.clients.orders.slow-start.window=-1s"),
        bad("ballast.clients.orders.slow-start.aggression", "out of range", "a number > 0",
            OK, "ballast.clients.orders.slow-start.aggression=0"),
        bad("ballast.clients.orders.slow-start.min-weight-percent", "out of range",
            "a percentage > 0 and <= 100",
            OK, "ballast.clients.orders.slow-start.min-weight-percent=0"),
        bad("ballast.clients.orders.slow-start.min-weight-percent", "out of range",
            "a percentage > 0 and <= 100",
            OK, "ballast.clients.orders.slow-start.min-weight-percent=100.5"),
        bad("ballast.clients.orders.aperture.client-index", "not below client-count 4",
            "an index from 0 to 3", OK, "ballast.clients.orders.aperture.client-index=4",
            "ballast.clients.orders.aperture.client-count=4"),
        bad("ballast.clients.orders.decay-time", "not positive", "a positive duration",
            OK, "ballast.clients.orders.decay-time=-5s"),
        bad("ballast.clients.orders.default-rtt", "negative", "a duration >= 0",
            OK, "ballast.clients.orders.default-rtt=-1ms"),
        bad("ballast.clients.orders.timeout", "not positive", "a positive duration",
            OK, "ballast.clients.orders.timeout=0s"),
        bad("ballast.clients.orders.late-answer-wait", "negative", "a duration >= 0",
            OK, "ballast.clients.orders.late-answer-wait=-1s"),
        bad("ballast.clients.orders.pool.acquire-timeout", "not positive", "a positive duration",
            OK, "ballast.clients.orders.pool.acquire-timeout=-100ms"),
        bad("ballast.clients.orders.pool.max-connections", "below 1", "an integer >= 1",
            OK, "ballast.clients.orders.pool.max-connections=0"),
        bad("ballast.clients.orders.pool.max-pending-acquires", "below 1", "an integer >= 1",
            OK, "ballast.clients.orders.pool.max-pending-acquires=0"),
        bad("ballast.clients.orders.retry-budget.percent", "out of range", "0-100",
            OK, "ballast.clients.orders.retry-budget.percent=150"),
        bad("ballast.clients.orders.subset.selectors[1]", "empty label key",
            "comma-separated label keys",
            OK, "ballast.clients.orders.subset.selectors[0]=zone",
            "ballast.clients.orders.subset.selectors[1]=zone,,version"),
        bad("ballast.clients.orders.subset.fallback-policy", "unknown value",
            "one of no-fallback, any-endpoint, default-subset",
            OK, "ballast.clients.orders.subset.fallback-policy=sometimes"),
        bad("ballast.clients.orders.subset.default-subset", "no labels while",
            "label key=value pairs",
            OK, "ballast.clients.orders.subset.selectors[0]=zone",
            "ballast.clients.orders.subset.fallback-policy=default-subset"),
        bad("ballast.clients.orders.subset.header-prefix", "unexpected character 'X'",
            "a lowercase header-name prefix",
            OK, "ballast.clients.orders.subset.header-prefix=X-Lb-"),
        bad("ballast.clients.orders.protocol", "unknown value", "one of framed, http",
            OK, "ballast.clients.orders.protocol=smtp"),
        bad("ballast.defaults.decay-time", "not positive", "a positive duration",
            OK, "ballast.defaults.decay-time=-1s"),
        bad("ballast.clients.orders.max-frame-size", "out of range", "a size of 64B to 2GB",
            OK, "ballast.clients.orders.max-frame-size=10B"),
        bad("ballast.clients.orders.outlier-detection.success-rate-threshold", "out of range",
            "a number in 0-1",
            OK, "ballast.clients.orders.outlier-detection.success-rate-threshold=1.5"),
        bad("ballast.clients.orders.outlier-detection.max-ejection-time",
            "below outlier-detection.base-ejection-time (5s)", "a duration >= outlier-detection",
            OK, "ballast.clients.orders.outlier-detection.max-ejection-time=1s"),
        // Keys that are no property: typos, at every level, under a client or the defaults.
        bad("ballast.clients.orders.balancr",
            "unknown property, did you mean ballast.clients.orders.balancer?",
            "one of the properties of a client: aperture.*, balancer, close-grace,",
            OK, "ballast.clients.orders.balancr=vnswrr"),
        bad("ballast.clients.orders.pool.max-conections",
            "did you mean ballast.clients.orders.pool.max-connections?",
            "one of the properties of pool: acquire-timeout, connect-timeout,",
            OK, "ballast.clients.orders.pool.max-conections=2"),
        bad("ballast.clients[orders.eu].subset.selector",
            "did you mean ballast.clients[orders.eu].subset.selectors?",
            "one of the properties of subset:",
            "ballast.clients[orders.eu].endpoints=10.0.0.1:7000",
            "ballast.clients[orders.eu].subset.selector=zone"),
        bad("ballast.clients.orders.discovery.zookeper.connect",
            "did you mean ballast.clients.orders.discovery.zookeeper?",
            "one of the properties of discovery: dns.*, etcd.*, zookeeper.*",
            OK, "ballast.clients.orders.discovery.zookeper.connect=127.0.0.1:2181"),
        bad("ballast.defaults.timout", "did you mean ballast.defaults.timeout?",
            "one of the properties of a client:",
            OK, "ballast.defaults.timout=2s"),
        bad("ballast.spring-cloud.balancer", "unknown balancer",
            "one of vnswrr, swrr, round-robin, weighted-random, least-loaded, p2c-peak-ewma",
            "ballast.spring-cloud.balancer=fastest"),
        bad("ballast.clients.orders.hash.table-size", "not a prime up to 16777216",
            "a prime, e.g. 65537", OK, "ballast.clients.orders.hash.table-size=65536"),
        bad("ballast.clients.orders.hash.load-bound", "out of range",
            "0 for unbounded, or 1 to 1000, e.g. 1.25",
            OK, "ballast.clients.orders.hash.load-bound=0.5"),
        bad("ballast.clients.orders.hash.key-hash", "unknown key hash",
            "one of fnv1a_64, fnv1_64, fnv1a_32, fnv1_32, md5, crc32a, crc32, murmur,"
                + " one_at_a_time", OK, "ballast.clients.orders.hash.key-hash=sha1"),
        bad("ballast.clients.orders.hash.min-ring-size", "above hash.max-ring-size (4096)",
            "at most hash.max-ring-size", OK, "ballast.clients.orders.hash.min-ring-size=5000"),
        bad("ballast.clients.orders.hash.request-hash-header", "unexpected character ' '",
            "a header name of letters", OK,
            "ballast.clients.orders.hash.request-hash-header=x user"),
        bad("ballast.clients.orders.balancer", "picks by key, which label subsets do not pass on",
            "without subset.selectors", OK, "ballast.clients.orders.balancer=ketama",
            "ballast.clients.orders.subset.selectors[0]=zone"),
        bad("ballast.spring-cloud.balancer", "picks by key, and Spring Cloud requests give none",
            "one of vnswrr, swrr, round-robin, weighted-random, least-loaded, p2c-peak-ewma",
            "ballast.spring-cloud.balancer=maglev"),
        bad("ballast.clients.orders.zone", "unknown property",
            "one of the properties of a client:",
            OK, "ballast.clients.orders.zone=a"));
  }

  private static Arguments bad(String property, String reason, String expected, String... props) {
    return Arguments.of(property, reason, expected, List.of(props));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("invalidProperties")
  void startupFailsNamingTheProperty(
      String property, String reason, String expected, List<String> props) {
    runner.withPropertyValues(props.toArray(String[]::new)).run(ctx -> {
      assertThat(ctx).hasFailed();
      FailureAnalysis analysis =
          new InvalidBallastPropertyFailureAnalyzer().analyze(ctx.getStartupFailure());
      assertThat(analysis).as("analysis of %s", ctx.getStartupFailure()).isNotNull();
      assertThat(analysis.getDescription())
          .contains("Invalid Ballast property '" + property + "'")
          .contains(reason);
      assertThat(analysis.getAction()).contains("'" + property + "'").contains(expected);
    });
  }

  /** Through a real SpringApplication: the analyzer is found in META-INF/spring.factories. */
  @Test
  void realApplicationPrintsTheAnalysis(CapturedOutput output) {
    SpringApplicationBuilder app = new SpringApplicationBuilder(App.class)
        .web(WebApplicationType.NONE)
        .properties("ballast.clients.orders.endpoints[0]=10.0.0.1:7000",
            "ballast.clients.orders.endpoints[1]=10.0.0.2",
            "spring.main.banner-mode=off");
    assertThatThrownBy(app::run).hasRootCauseInstanceOf(InvalidBallastPropertyException.class);
    assertThat(output)
        .contains("APPLICATION FAILED TO START")
        .contains("Invalid Ballast property 'ballast.clients.orders.endpoints[1]'")
        .contains("Value: \"10.0.0.2\"")
        .contains("address: 10.0.0.2 (expected: host:port)")
        .contains("host:port[;weight=N][;key=value...], e.g. 10.0.0.1:7000;weight=3;zone=us-east");
  }

  /** The typo of issue 25, through a real SpringApplication and Ballast's failure analyzer. */
  @Test
  void aTypoUnderAClientStopsStartUpNamingTheKey(CapturedOutput output) {
    SpringApplicationBuilder app = new SpringApplicationBuilder(App.class)
        .web(WebApplicationType.NONE)
        .properties(OK, "ballast.clients.orders.balancr=vnswrr", "spring.main.banner-mode=off");
    assertThatThrownBy(app::run).hasRootCauseInstanceOf(InvalidBallastPropertyException.class);
    assertThat(output)
        .contains("APPLICATION FAILED TO START")
        .contains("Invalid Ballast property 'ballast.clients.orders.balancr'")
        .contains("Value: \"vnswrr\"")
        .contains("Reason: unknown property, did you mean ballast.clients.orders.balancer?");
  }

  @Test
  void malformedDurationIsReportedBySpringsBindAnalysisNamingTheProperty(CapturedOutput output) {
    SpringApplicationBuilder app = new SpringApplicationBuilder(App.class)
        .web(WebApplicationType.NONE)
        .properties(OK, "ballast.clients.orders.decay-time=soon", "spring.main.banner-mode=off");
    assertThatThrownBy(app::run).isNotNull();
    assertThat(output).contains("APPLICATION FAILED TO START").contains("decay-time")
        .contains("soon");
  }

  @SpringBootConfiguration(proxyBeanMethods = false)
  @EnableAutoConfiguration
  static class App {}
}
