package dev.ballast.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.core.BalancerConfig;
import dev.ballast.core.ChildBalancer;
import dev.ballast.core.config.Values;
import dev.ballast.core.policy.BalancingPolicy;
import dev.ballast.core.policy.ConfiguredPolicy;
import dev.ballast.core.policy.PolicyRegistry;
import dev.ballast.core.testing.LogRecorder;
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
    String known = "a property Ballast knows";
    return Stream.of(
        bad("ballast.clients.orders.endpoints", "invalid value",
            "host:port[;weight=N][;key=value...] entries such as 10.0.0.1:7000;weight=3;zone=a;"
                + " port: x, expected 1-65535",
            OK, "ballast.clients.orders.endpoints[1]=10.0.0.2:x"),
        bad("ballast.clients.orders.endpoints", "invalid value", "weight: -1, expected > 0",
            "ballast.clients.orders.endpoints[0]=10.0.0.1:80;weight=-1"),
        bad("ballast.clients.orders.endpoints", "invalid value",
            "each address once; 10.0.0.1:7000 is given twice",
            OK, "ballast.clients.orders.endpoints[1]=10.0.0.1:7000;zone=b"),
        bad("ballast.clients.orders.endpoints", "invalid value", "at least one endpoint",
            "ballast.clients.orders.balancer=vnswrr"),
        bad("ballast.clients.orders.discovery", "invalid value",
            "at most one of zookeeper, etcd, dns",
            "ballast.clients.orders.discovery.etcd.endpoints=10.0.0.6:2379",
            "ballast.clients.orders.discovery.etcd.prefix=/services/orders/",
            "ballast.clients.orders.discovery.dns.name=orders.internal:8080"),
        bad("ballast.clients.orders.discovery.zookeeper.path", "invalid value",
            "an absolute path, e.g. /services/orders",
            "ballast.clients.orders.discovery.zookeeper.connect=10.0.0.5:2181"),
        bad("ballast.clients.orders.discovery.etcd.endpoints", "invalid value",
            "host:port[,host:port...], e.g. 10.0.0.5:2181,10.0.0.6:2181",
            "ballast.clients.orders.discovery.etcd.endpoints=http://10.0.0.6:2379",
            "ballast.clients.orders.discovery.etcd.prefix=/services/orders/"),
        bad("ballast.clients.orders.discovery.dns.name", "invalid value",
            "orders.internal:8080 or _grpc._tcp.orders.internal",
            "ballast.clients.orders.discovery.dns.name=orders.internal"),
        bad("ballast.clients.orders.endpoints", "invalid value",
            "either endpoints or a discovery source",
            OK, "ballast.clients.orders.discovery.dns.name=orders.internal:8080"),
        bad("ballast.clients.orders.balancer", "invalid value",
            "one of round_robin, weighted_random, swrr, vnswrr, least_loaded, p2c_peak_ewma,"
                + " aperture, ring_hash, ketama, maglev, weighted_round_robin, p2c_utilization",
            OK, "ballast.clients.orders.balancer=fastest"),
        bad("ballast.clients.orders.balancer", "did you mean p2c_peak_ewma?", "one of",
            OK, "ballast.clients.orders.balancer=p2c-peak-ewmaa"),
        bad("ballast.clients.orders.failure-penalty", "invalid value", ">= 1, 1 for off",
            OK, "ballast.clients.orders.failure-penalty=0.5"),
        bad("ballast.clients.orders.slow-start.window", "invalid value", ">= 0, 0 for off",
            OK, "ballast.clients.orders.slow-start.window=-1s"),
        bad("ballast.clients.orders.slow-start.aggression", "invalid value", "> 0",
            OK, "ballast.clients.orders.slow-start.aggression=0"),
        bad("ballast.clients.orders.slow-start.min-weight-percent", "invalid value",
            "> 0 and <= 100", OK, "ballast.clients.orders.slow-start.min-weight-percent=0"),
        bad("ballast.clients.orders.slow-start.min-weight-percent", "invalid value",
            "> 0 and <= 100", OK, "ballast.clients.orders.slow-start.min-weight-percent=100.5"),
        bad("ballast.clients.orders.aperture.client-index", "invalid value", "0 to 3",
            OK, "ballast.clients.orders.aperture.client-index=4",
            "ballast.clients.orders.aperture.client-count=4"),
        bad("ballast.clients.orders.decay-time", "invalid value", "> 0",
            OK, "ballast.clients.orders.decay-time=-5s"),
        bad("ballast.clients.orders.decay-time", "invalid value",
            "a duration such as 10s, 250ms or 1.5m",
            OK, "ballast.clients.orders.decay-time=soon"),
        bad("ballast.clients.orders.default-rtt", "invalid value", ">= 0",
            OK, "ballast.clients.orders.default-rtt=-1ms"),
        bad("ballast.clients.orders.timeout", "invalid value", "> 0",
            OK, "ballast.clients.orders.timeout=0s"),
        bad("ballast.clients.orders.late-answer-wait", "invalid value", ">= 0",
            OK, "ballast.clients.orders.late-answer-wait=-1s"),
        bad("ballast.clients.orders.pool.acquire-timeout", "invalid value", "> 0",
            OK, "ballast.clients.orders.pool.acquire-timeout=-100ms"),
        bad("ballast.clients.orders.pool.max-connections", "invalid value", "> 0",
            OK, "ballast.clients.orders.pool.max-connections=0"),
        bad("ballast.clients.orders.pool.max-pending-acquires", "invalid value", "> 0",
            OK, "ballast.clients.orders.pool.max-pending-acquires=0"),
        bad("ballast.clients.orders.retry-budget.percent", "invalid value", "0 to 100",
            OK, "ballast.clients.orders.retry-budget.percent=150"),
        bad("ballast.clients.orders.hedging.percentile", "invalid value", "in (0, 1)",
            OK, "ballast.clients.orders.hedging.percentile=1.5"),
        bad("ballast.clients.orders.subset.selectors", "invalid value", "none empty",
            OK, "ballast.clients.orders.subset.selectors[0]=zone",
            "ballast.clients.orders.subset.selectors[1]=zone,,version"),
        bad("ballast.clients.orders.subset.fallback-policy", "invalid value",
            "one of no_fallback, any_endpoint, default_subset",
            OK, "ballast.clients.orders.subset.fallback-policy=sometimes"),
        bad("ballast.clients.orders.subset.default-subset", "invalid value",
            "labels when fallback-policy is default_subset",
            OK, "ballast.clients.orders.subset.selectors[0]=zone",
            "ballast.clients.orders.subset.fallback-policy=default-subset"),
        bad("ballast.clients.orders.subset.header-prefix", "invalid value",
            "lowercase letters, digits",
            OK, "ballast.clients.orders.subset.header-prefix=X-Lb-"),
        bad("ballast.clients.orders.protocol", "did you mean http?",
            "one of framed, http, http2, grpc", OK, "ballast.clients.orders.protocol=htttp"),
        bad("ballast.defaults.decay-time", "invalid value", "> 0",
            OK, "ballast.defaults.decay-time=-1s"),
        bad("ballast.clients.orders.max-frame-size", "invalid value", ">= 64",
            OK, "ballast.clients.orders.max-frame-size=10B"),
        bad("ballast.clients.orders.outlier-detection.success-rate-threshold", "invalid value",
            "in [0, 1]",
            OK, "ballast.clients.orders.outlier-detection.success-rate-threshold=1.5"),
        bad("ballast.clients.orders.outlier-detection.base-ejection-time", "invalid value",
            "<= max-ejection-time 1s", // the option as a property, the bound as written
            OK, "ballast.clients.orders.outlier-detection.max-ejection-time=1s"),
        // Keys that are no property: typos, at every level, under a client or the defaults.
        bad("ballast.clients.orders.balancr",
            "unknown property, did you mean ballast.clients.orders.balancer?", known,
            OK, "ballast.clients.orders.balancr=vnswrr"),
        bad("ballast.client.orders.balancer",
            "unknown property, did you mean ballast.clients.orders.balancer?", known,
            OK, "ballast.client.orders.balancer=vnswrr"),
        bad("ballast.defualts.timeout",
            "unknown property, did you mean ballast.defaults.timeout?", known,
            OK, "ballast.defualts.timeout=2s"),
        bad("ballast.spring-cloud.balancr",
            "unknown property, did you mean ballast.spring-cloud.balancer?", known
                + "; see docs/spring.md", // not the client options: no client's property
            OK, "ballast.spring-cloud.balancr=p2c-peak-ewma"),
        bad("ballast.clients.orders.pool.max-conections",
            "did you mean ballast.clients.orders.pool.max-connections?", known,
            OK, "ballast.clients.orders.pool.max-conections=2"),
        bad("ballast.clients[orders.eu].subset.selector",
            "did you mean ballast.clients[orders.eu].subset.selectors?", known,
            "ballast.clients[orders.eu].endpoints=10.0.0.1:7000",
            "ballast.clients[orders.eu].subset.selector=zone"),
        bad("ballast.clients.orders.discovery.zookeper.connect",
            "did you mean ballast.clients.orders.discovery.zookeeper.connect?", known,
            OK, "ballast.clients.orders.discovery.zookeper.connect=127.0.0.1:2181"),
        bad("ballast.defaults.timout", "did you mean ballast.defaults.timeout?", known
            + "; see the client options",
            OK, "ballast.defaults.timout=2s"),
        bad("ballast.metrics.enable", "did you mean ballast.metrics.enabled?", known
            + "; see docs/spring.md",
            OK, "ballast.metrics.enable=false"),
        bad("ballast.spring-cloud.balancer", "invalid value", "one of round_robin",
            "ballast.spring-cloud.balancer=fastest"),
        // the key-picking options have no group of their own (hash.* was one)
        bad("ballast.clients.orders.hash.table-size",
            "did you mean ballast.clients.orders.table-size?", known,
            OK, "ballast.clients.orders.hash.table-size=65537"),
        bad("ballast.clients.orders.table-size", "invalid value", "a prime from 2 to",
            OK, "ballast.clients.orders.table-size=65536"),
        bad("ballast.clients.orders.load-bound", "invalid value",
            "0 for off, or 1 to 1000, e.g. 1.25",
            OK, "ballast.clients.orders.load-bound=0.5"),
        bad("ballast.clients.orders.key-hash", "invalid value",
            "one of fnv1a_64, fnv1_64, fnv1a_32, fnv1_32, md5, crc32a, crc32, murmur,"
                + " one_at_a_time", OK, "ballast.clients.orders.key-hash=sha1"),
        bad("ballast.clients.orders.min-ring-size", "invalid value", "<= max-ring-size 4096",
            OK, "ballast.clients.orders.min-ring-size=5000"),
        bad("ballast.clients.orders.request-hash-header", "invalid value",
            "a header name of letters", OK,
            "ballast.clients.orders.request-hash-header=x user"),
        // gRPC's refusal in the properties' words: no childPolicy, no locality to choose
        bad("ballast.clients.orders.balancer", "invalid value",
            "gRPC can run with these options; under label subsets (subset.*): none of [ketama]"
                + " is supported (ketama picks by key, and a subset passes no key on; expected:"
                + " one of [round_robin,", OK,
            "ballast.clients.orders.balancer=ketama",
            "ballast.clients.orders.protocol=grpc",
            "ballast.clients.orders.subset.selectors[0]=zone"),
        bad("ballast.clients.orders.balancer", "invalid value",
            "weighted_round_robin reads load reports, which no composite's child gets; expected:",
            OK, "ballast.clients.orders.balancer=weighted-round-robin",
            "ballast.clients.orders.protocol=grpc",
            "ballast.clients.orders.subset.selectors[0]=zone"),
        // gRPC's weighted_round_robin without grpc-xds: why, and no "did you mean" the name
        bad("ballast.clients.orders.balancer", "invalid value", "under zones (locality.*): none"
            + " of [weighted_round_robin] is known (weighted_round_robin is a gRPC policy not"
            + " registered here (its jar is not on the class path, e.g. io.grpc:grpc-xds);"
            + " expected: one of", OK,
            "ballast.clients.orders.balancer=weighted-round-robin",
            "ballast.clients.orders.protocol=grpc", "ballast.clients.orders.locality.local-zone=a"),
        // a label key as written, though camel-case: only the options' names take dashes
        bad("ballast.clients.orders.endpoints", "invalid value", "label appVersion: given twice",
            OK, "ballast.clients.orders.endpoints[0]=10.0.0.1:7000;appVersion=a;appVersion=b"),
        bad("ballast.clients.orders.balancer", "invalid value", "under label subsets (subset.*):"
            + " under zones (locality.*): none of [ketama] is supported (ketama picks by key", OK,
            "ballast.clients.orders.balancer=ketama", "ballast.clients.orders.protocol=grpc",
            "ballast.clients.orders.subset.selectors[0]=zone",
            "ballast.clients.orders.locality.local-zone=a"),
        bad("ballast.spring-cloud.balancer", "picks by key, and Spring Cloud requests give none",
            "a policy that picks without a key, e.g. p2c-peak-ewma",
            "ballast.spring-cloud.balancer=maglev"),
        bad("ballast.clients.orders.zone", "unknown property", known,
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
        .contains("Invalid Ballast property 'ballast.clients.orders.endpoints'")
        .contains("10.0.0.2")
        .contains("address: 10.0.0.2, expected host:port")
        .contains("host:port[;weight=N][;key=value...] entries such as"
            + " 10.0.0.1:7000;weight=3;zone=a");
  }

  /** A team's policy, registered in lb-core but given no gRPC provider. */
  static final class NoGrpcProvider implements BalancingPolicy<Values> {
    @Override
    public String name() {
      return "no_grpc_provider";
    }

    @Override
    public dev.ballast.core.config.OptionSet<Values, ?> options() {
      return NO_OPTIONS;
    }

    @Override
    public <T> ChildBalancer<T> newBalancer(BalancerConfig common, Values config) {
      return ConfiguredPolicy.of("round_robin", null).newBalancer(common);
    }
  }

  @Test
  void aGrpcClientsPolicyWithoutAGrpcProviderIsLoggedNotRefused() {
    // its channels fail until a provider is registered, which an application may do later
    if (PolicyRegistry.defaultRegistry().find("no_grpc_provider").isEmpty()) {
      PolicyRegistry.defaultRegistry().register(new NoGrpcProvider());
    }
    try (LogRecorder log = LogRecorder.on(BallastGrpcEndpoints.class.getName())) {
      runner.withPropertyValues(OK, "ballast.clients.orders.protocol=grpc",
          "ballast.clients.orders.balancer=no-grpc-provider")
          .run(ctx -> assertThat(ctx).hasNotFailed());
      assertThat(log.lines()).anySatisfy(m -> assertThat(m).startsWith("WARNING client orders:"
          + " no gRPC policy named no_grpc_provider is registered"));
    }
  }

  /**
   * A gRPC client's round robin under subsets and zones is lb-core's (gRPC's own round_robin,
   * which the locality policy alone takes, cannot balance a subset's zones): it starts.
   */
  @Test
  void aGrpcClientsRoundRobinUnderSubsetsAndZonesStarts() {
    runner.withPropertyValues(OK, "ballast.clients.orders.balancer=round-robin",
        "ballast.clients.orders.protocol=grpc", "ballast.clients.orders.subset.selectors[0]=zone",
        "ballast.clients.orders.locality.local-zone=a")
        .run(ctx -> assertThat(ctx).hasNotFailed());
  }

  /** A team's policy with an option of its own whose name has two words. */
  static final class SpillPolicy implements BalancingPolicy<Values> {
    @Override
    public String name() {
      return "spill_policy";
    }

    @Override
    public dev.ballast.core.config.OptionSet<Values, ?> options() {
      return dev.ballast.core.config.OptionSet.ofValues("spill_policy", v -> {
        int percent = v.get("spillPercent", 0);
        if (percent > 100) {
          throw new IllegalArgumentException("spillPercent: " + percent + " (expected: 0 to 100)");
        }
      }, List.of(Values.option("spillPercent", dev.ballast.core.config.ValueType.INT, 0, "10",
          "x")));
    }

    @Override
    public <T> ChildBalancer<T> newBalancer(BalancerConfig common, Values config) {
      return ConfiguredPolicy.of("round_robin", null).newBalancer(common);
    }
  }

  /**
   * A bad option of a team's policy ({@code policy.*}) is reported as any other property: with
   * the value given, and the names in Spring's dashed form.
   */
  @Test
  void aBadOptionOfATeamsPolicyIsReportedWithItsValueAndDashedNames() {
    if (PolicyRegistry.defaultRegistry().find("spill_policy").isEmpty()) {
      PolicyRegistry.defaultRegistry().register(new SpillPolicy());
    }
    runner.withPropertyValues(OK, "ballast.clients.orders.balancer=spill-policy",
        "ballast.clients.orders.policy.spil-percent=5").run(ctx -> {
          InvalidBallastPropertyException e = (InvalidBallastPropertyException)
              rootCause(ctx.getStartupFailure());
          assertThat(e.property()).isEqualTo("ballast.clients.orders.policy.spil-percent");
          assertThat(e.value()).isEqualTo("5");
          assertThat(e.reason()).isEqualTo(
              "unknown spill_policy option, did you mean spill-percent?");
          assertThat(e.expected()).isEqualTo("one of spill-percent");
        });
    runner.withPropertyValues(OK, "ballast.clients.orders.balancer=spill-policy",
        "ballast.clients.orders.policy.spill-percent=150").run(ctx -> {
          InvalidBallastPropertyException e = (InvalidBallastPropertyException)
              rootCause(ctx.getStartupFailure());
          assertThat(e.property()).isEqualTo("ballast.clients.orders.policy.spill-percent");
          assertThat(e.value()).isEqualTo("150");
          assertThat(e.expected()).isEqualTo("0 to 100");
        });
    // another form of the key; a client's option given under policy
    runner.withPropertyValues(OK, "ballast.clients.orders.balancer=spill-policy",
        "ballast.clients.orders.policy.spill_percent=150").run(ctx -> assertThat(
            ((InvalidBallastPropertyException) rootCause(ctx.getStartupFailure())).value())
            .isEqualTo("150"));
    runner.withPropertyValues(OK, "ballast.clients.orders.balancer=spill-policy",
        "ballast.clients.orders.policy.slow-start.window=10s").run(ctx -> {
          InvalidBallastPropertyException e = (InvalidBallastPropertyException)
              rootCause(ctx.getStartupFailure());
          assertThat(e.value()).isEqualTo("10s");
          assertThat(e.reason()).isEqualTo("unknown spill_policy option, but a client's");
          assertThat(e.expected()).isEqualTo("among the client's options, not under policy");
        });
  }

  private static Throwable rootCause(Throwable t) {
    while (t.getCause() != null) {
      t = t.getCause();
    }
    return t;
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
  void malformedDurationIsReportedNamingTheProperty(CapturedOutput output) {
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
