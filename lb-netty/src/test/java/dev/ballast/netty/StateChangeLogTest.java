package dev.ballast.netty;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.core.Algorithm;
import dev.ballast.core.health.HealthCheckConfig;
import dev.ballast.core.log.StateChangeLog;
import dev.ballast.netty.framed.FramedServer;
import dev.ballast.netty.health.HealthCheck;
import dev.ballast.netty.outlier.OutlierDetection;
import dev.ballast.netty.testing.Await;
import dev.ballast.netty.testing.ManualSource;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The lines a client logs for its state changes over real framed servers: an ejection and the
 * reinstatement, a failed and a passed active check, its source down and back, a rejected
 * entry; each once per change, naming the client, the endpoint and the cause; none per call.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class StateChangeLogTest {

  private final AtomicBoolean aFailing = new AtomicBoolean();
  private final FramedServer a = FramedServer.start(req -> aFailing.get()
      ? CompletableFuture.failedFuture(new IllegalStateException("a is failing"))
      : CompletableFuture.completedFuture(req.payload()));
  private final FramedServer b = FramedServer.start(FramedServer.echo());
  private final List<String> lines = new CopyOnWriteArrayList<>();
  private final Logger logger = Logger.getLogger(StateChangeLog.LOGGER);
  private final Handler capture = new Handler() {
    @Override
    public void publish(LogRecord r) {
      // the logger is the JVM's: a client of another test class (named ballast, the default)
      // whose ejection timer is still running may log here too
      if (!String.valueOf(r.getMessage()).contains("client ballast:")) {
        lines.add(r.getLevel() + " " + r.getMessage());
      }
    }

    @Override
    public void flush() {}

    @Override
    public void close() {}
  };

  @BeforeEach
  void capture() {
    logger.setUseParentHandlers(false); // kept off the console
    logger.addHandler(capture);
  }

  @AfterEach
  void stop() {
    logger.removeHandler(capture);
    logger.setUseParentHandlers(true);
    a.close();
    b.close();
  }

  private long count(String part) {
    return lines.stream().filter(l -> l.contains(part)).count();
  }

  private void awaitLine(String part) {
    Await.until(Duration.ofSeconds(20), () -> "a line with " + part + " in " + lines,
        () -> count(part) > 0);
  }

  @Test
  void anEjectionAndItsReinstatementAreLoggedOnceEachAndCallsLogNothing() throws Exception {
    try (BallastClient<byte[], byte[]> client = BallastClient.framed().name("orders")
        .endpoints(List.of(a.endpoint(), b.endpoint())).balancer(Algorithm.ROUND_ROBIN)
        .outlierDetection(OutlierDetection.builder().consecutiveFailures(1)
            .maxEjectionPercent(50).baseEjectionTime(Duration.ofMillis(200)).jitter(0).build())
        .build()) {
      for (int i = 0; i < 100; i++) {
        client.call(new byte[] {1}).get(10, TimeUnit.SECONDS);
      }
      assertThat(lines).as("calls log nothing").isEmpty();
      aFailing.set(true);
      for (int i = 0; i < 10 && count("ejected") == 0; i++) {
        try {
          client.call(new byte[] {1}).get(10, TimeUnit.SECONDS);
        } catch (ExecutionException expected) {
          // a's failure
        }
      }
      aFailing.set(false);
      awaitLine("reinstated");
      assertThat(count("ejected")).isEqualTo(1);
      assertThat(count("reinstated")).isEqualTo(1);
      assertThat(lines.get(0)).isEqualTo("WARNING client orders: endpoint " + a.endpoint()
          .address() + " ejected by outlier detection for 200 ms: 1 consecutive failures");
      assertThat(lines.get(1)).isEqualTo("INFO client orders: endpoint " + a.endpoint().address()
          + " reinstated after its ejection");
    }
  }

  @Test
  void aFailedAndAPassedCheckAreLoggedOnceEach() {
    try (BallastClient<byte[], byte[]> client = BallastClient.framed().name("checked")
        .endpoints(List.of(a.endpoint(), b.endpoint()))
        .healthCheck(HealthCheck.builder().enabled(true).config(HealthCheckConfig.builder()
            .interval(Duration.ofMillis(50)).initialJitter(Duration.ZERO).build()).build())
        .build()) {
      a.setServing(false);
      awaitLine("failed its active check");
      long checks = client.stack().healthChecker().completed();
      Await.until(Duration.ofSeconds(20), () -> "more checks",
          () -> client.stack().healthChecker().completed() >= checks + 6);
      a.setServing(true);
      awaitLine("passed its active check");
      assertThat(count("failed its active check")).as("once while it kept failing").isEqualTo(1);
      assertThat(count("passed its active check")).isEqualTo(1);
      assertThat(lines).anySatisfy(l -> assertThat(l).startsWith("WARNING client checked: "
          + "endpoint " + a.endpoint().address() + " failed its active check").endsWith(
          ", now unhealthy"));
    }
  }

  @Test
  void aZonesSpillAndALevelsPanicAreLoggedOnceEach() throws Exception {
    FramedServer c = FramedServer.start(FramedServer.echo());
    java.util.concurrent.atomic.AtomicLong now = new java.util.concurrent.atomic.AtomicLong();
    Duration interval = Duration.ofSeconds(5);
    BallastClient.Builder<byte[], byte[]> builder = BallastClient.framed().name("zoned")
        .endpoints(List.of(dev.ballast.core.Endpoint.parse(a.endpoint() + ";zone=a"),
            dev.ballast.core.Endpoint.parse(b.endpoint() + ";zone=a"),
            dev.ballast.core.Endpoint.parse(c.endpoint() + ";zone=b")))
        .balancer(Algorithm.ROUND_ROBIN).outlierDetection(OutlierDetection.disabled())
        .ticker(now::get)
        .healthCheck(HealthCheck.builder().enabled(true).config(HealthCheckConfig.builder()
            .interval(interval).initialJitter(Duration.ZERO).build()).build());
    // two thirds of the callers in zone a, as two thirds of the endpoints: all calls stay there
    ClientOptions.CLIENT.apply(builder, Map.of("locality", Map.of("localZone", "a",
        "callerZones", Map.of("a", 2, "b", 1), "minClusterSize", 1)));
    try (BallastClient<byte[], byte[]> client = builder.build()) {
      var checker = client.stack().healthChecker();
      long[] due = {3};
      Runnable checksThenCalls = () -> {
        Await.until(Duration.ofSeconds(20), () -> checker.completed() + " checks",
            () -> checker.completed() >= due[0]);
        due[0] += 3;
        now.addAndGet(interval.toNanos()); // the next round of checks is due
        for (int i = 0; i < 6; i++) { // the tables are made again at the first pick
          client.call(new byte[] {1}).exceptionally(e -> null).join();
        }
      };
      checksThenCalls.run();
      assertThat(lines).isEmpty();

      a.setServing(false); // zone a keeps 1 of 2: less than its callers' share
      checksThenCalls.run();
      checksThenCalls.run();
      assertThat(count("zone a spills")).as("%s", lines).isEqualTo(1);

      a.setServing(true);
      checksThenCalls.run();
      checksThenCalls.run();
      assertThat(count("zone a keeps all its calls again")).isEqualTo(1);

      a.setServing(false);
      b.setServing(false);
      c.setServing(false);
      checksThenCalls.run();
      checksThenCalls.run();
      assertThat(count("priority 0 in panic")).isEqualTo(1);
      // with no healthy endpoint left, zone routing is off: said once, naming the zone
      assertThat(count("zone a: zone-aware routing off")).as("%s", lines).isEqualTo(1);
      assertThat(lines).noneMatch(l -> l.contains("zone null"));

      a.setServing(true);
      b.setServing(true);
      c.setServing(true);
      checksThenCalls.run();
      checksThenCalls.run();
      assertThat(count("priority 0 out of panic")).isEqualTo(1);
      assertThat(count("zone a keeps all its calls (zone-aware routing on again)")).isEqualTo(1);
      assertThat(lines).anySatisfy(l -> assertThat(l).startsWith(
          "WARNING client zoned: zone a spills: ").contains("% of its calls stay local"));
    } finally {
      c.close();
    }
  }

  @Test
  void theSourceDownAndBackAndARejectedEntry() throws Exception {
    ManualSource source = new ManualSource("test-registry");
    try (BallastClient<byte[], byte[]> client =
        BallastClient.framed().name("fed").source(source).build()) {
      source.listener().onEntries(
          Map.of("a", a.endpoint().toString(), "bad", "127.0.0.1:99999"));
      client.endpointsWhen(es -> es.size() == 1).get(10, TimeUnit.SECONDS);
      // the feed counts the set once the client has it: the down line below names that count
      Await.until(Duration.ofSeconds(10), () -> "the feed's count of " + client.feed()
          .endpointCount(), () -> client.feed().endpointCount() == 1);
      awaitLine("entry bad skipped");
      source.listener().onFailure(new IllegalStateException("session expired"));
      source.listener().onFailure(new IllegalStateException("session expired"));
      awaitLine("is down");
      source.listener().onEntries(Map.of("a", a.endpoint().toString(), "b",
          b.endpoint().toString()));
      client.endpointsWhen(es -> es.size() == 2).get(10, TimeUnit.SECONDS);
      awaitLine("is back");
      assertThat(count("is down")).as("once per change").isEqualTo(1);
      assertThat(count("is back")).isEqualTo(1);
      assertThat(lines).anySatisfy(l -> assertThat(l).isEqualTo("WARNING client fed: source "
          + "test-registry is down; keeping its last 1 endpoints: "
          + "java.lang.IllegalStateException: session expired"));
      assertThat(lines).anySatisfy(l -> assertThat(l).startsWith(
          "WARNING client fed: source test-registry: entry bad skipped ("));
    }
  }
}
