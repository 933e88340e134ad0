package dev.ballast.spring;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.env.YamlPropertySourceLoader;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.ContextConsumer;
import org.springframework.core.env.PropertySource;
import org.springframework.core.io.ByteArrayResource;

/**
 * Property names Spring would bind silently wrong: one option in two forms in one file (Spring
 * keeps one of them, the other is lost), a client name with letters Spring drops, list indexes
 * Spring cannot bind. Each stops start-up naming the keys as written.
 */
class PropertyFormsTest {

  private static final String OK = "ballast.clients.orders.endpoints[0]=10.0.0.1:7000";

  private final ApplicationContextRunner runner = new ApplicationContextRunner()
      .withConfiguration(AutoConfigurations.of(BallastAutoConfiguration.class));

  private static InvalidBallastPropertyException refusal(AssertableApplicationContext ctx) {
    assertThat(ctx).hasFailed();
    Throwable t = ctx.getStartupFailure();
    while (t != null && !(t instanceof InvalidBallastPropertyException)) {
      t = t.getCause();
    }
    assertThat(t).as("an InvalidBallastPropertyException in %s", ctx.getStartupFailure())
        .isNotNull();
    return (InvalidBallastPropertyException) t;
  }

  private static PropertySource<?> yaml(String name, String text) throws Exception {
    List<PropertySource<?>> loaded = new YamlPropertySourceLoader().load(name,
        new ByteArrayResource(text.getBytes(StandardCharsets.UTF_8)));
    return loaded.get(0);
  }

  /** Asserts that start-up failed naming both forms of one option, in either order. */
  private static ContextConsumer<AssertableApplicationContext> givenTwice(String a, String b) {
    String reason = "given twice, as %s and as %s, in one property source (Spring would keep"
        + " one of them)";
    return ctx -> assertThat(refusal(ctx).reason())
        .isIn(String.format(reason, a, b), String.format(reason, b, a));
  }

  @Test
  void oneOptionInTwoFormsInOneSourceIsRefusedNamingBoth() {
    runner.withPropertyValues(OK, "ballast.clients.orders.decay-time=5s",
            "ballast.clients.orders.decayTime=50s")
        .run(givenTwice("ballast.clients.orders.decay-time", "ballast.clients.orders.decayTime"));
    runner.withPropertyValues(OK, "ballast.defaults.pool.max-connections=2",
            "ballast.defaults.pool.maxConnections=8")
        .run(givenTwice("ballast.defaults.pool.max-connections",
            "ballast.defaults.pool.maxConnections"));
  }

  @Test
  void aNestedMapBesideTheDottedFormInOneYamlFileIsRefused() throws Exception {
    PropertySource<?> yaml = yaml("application.yml", """
        ballast:
          clients:
            orders:
              endpoints: 10.0.0.1:7000
              outlier-detection:
                max-ejection-time: 5m
              outlierDetection.maxEjectionTime: 50s
        """);
    runner.withInitializer(c -> c.getEnvironment().getPropertySources().addFirst(yaml))
        .run(givenTwice("ballast.clients.orders.outlier-detection.max-ejection-time",
            "ballast.clients.orders.outlierDetection.maxEjectionTime"));
  }

  @Test
  void aListGivenWholeAndByIndexInOneSourceIsRefused() {
    runner.withPropertyValues("ballast.clients.orders.endpoints=10.0.0.1:7000,10.0.0.2:7000",
            "ballast.clients.orders.endpoints[0]=10.0.0.3:7000")
        .run(givenTwice("ballast.clients.orders.endpoints",
            "ballast.clients.orders.endpoints[0]"));
  }

  @Test
  void aSourceOfHigherPrecedenceStillOverridesAnotherForm() throws Exception {
    // application.yml below, a command line above: Spring's precedence, not a mistake
    PropertySource<?> yaml = yaml("application.yml", """
        ballast.clients.orders:
          endpoints: 10.0.0.1:7000
          decayTime: 50s
        """);
    runner.withInitializer(c -> c.getEnvironment().getPropertySources().addLast(yaml))
        .withPropertyValues("ballast.clients.orders.decay-time=5s").run(ctx -> {
          assertThat(ctx).hasNotFailed();
          ClientSettings orders = ctx.getBean(BallastSettings.class).get("orders");
          assertThat(BallastAutoConfigurationTest.option(orders, "decayTime"))
              .isEqualTo(Duration.ofSeconds(5));
        });
  }

  @Test
  void aClientNameWithLettersSpringDropsIsRefusedAsWritten() {
    // a Cyrillic "е" (U+0435) in "orders": Spring's names drop it and bind "ordrs"
    runner.withPropertyValues("ballast.clients.ord\u0435rs.endpoints[0]=10.0.0.1:7000")
        .run(ctx -> {
          InvalidBallastPropertyException e = refusal(ctx);
          assertThat(e.property()).isEqualTo("ballast.clients.ord\u0435rs.endpoints[0]");
          assertThat(e.reason()).contains("U+0435").doesNotContain("ordrs");
        });
    runner.withPropertyValues(OK, "ballast.clients.orders.d\u0435cay-time=5s").run(ctx ->
        assertThat(refusal(ctx).property()).isEqualTo("ballast.clients.orders.d\u0435cay-time"));
  }

  @Test
  void listIndexesSpringCannotBindAreRefusedNamingTheProperty() {
    runner.withPropertyValues("ballast.clients.orders.endpoints[100000]=10.0.0.1:7000")
        .run(ctx -> {
          InvalidBallastPropertyException e = refusal(ctx);
          assertThat(e.property()).isEqualTo("ballast.clients.orders.endpoints[100000]");
          assertThat(e.expected()).contains("counted from 0");
        });
    runner.withPropertyValues(OK, "ballast.clients.orders.endpoints[2147483648]=10.0.0.2:7000")
        .run(ctx -> {
          InvalidBallastPropertyException e = refusal(ctx);
          assertThat(e.property()).isEqualTo("ballast.clients.orders.endpoints[2147483648]");
          assertThat(e.expected()).contains("counted from 0");
        });
    runner.withPropertyValues(OK, "ballast.clients.orders.subset.selectors[3]=zone").run(ctx ->
        assertThat(refusal(ctx).property())
            .isEqualTo("ballast.clients.orders.subset.selectors[3]"));
  }
}
