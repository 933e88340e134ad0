package dev.ballast.spring.web;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.netty.error.ConnectFailedException;
import dev.ballast.netty.error.DeadlineExceededException;
import dev.ballast.netty.testing.Nginx;
import dev.ballast.netty.testing.RawServer;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.restclient.RestTemplateBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.web.client.ResourceAccessException;
import org.springframework.web.client.RestClient;
import org.springframework.web.client.RestTemplate;
import org.springframework.web.reactive.function.client.WebClient;
import org.springframework.web.reactive.function.client.WebClientRequestException;

/**
 * Spring Boot's {@link RestClient}, {@link RestTemplate} and {@link WebClient} builders, with
 * properties only, over real nginx backends on 127.0.0.1: {@code http://<client-name>/} goes
 * through the named Ballast client (its balancer, response classification and deadline), any
 * other URL through Spring's own factory or connector.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class SpringHttpClientsTest {

  private static final Duration WAIT = Duration.ofSeconds(30);
  private static final String WEIGHTED = "http://weighted/items?i={i}";

  private static Nginx a;
  private static Nginx b;
  private static Nginx c;
  private static Nginx ok1;
  private static Nginx ok2;
  private static Nginx failing;
  private static RawServer silent;
  private static ConfigurableApplicationContext context;
  private static RestClient restClient;
  private static WebClient webClient;

  @BeforeAll
  static void start() throws Exception {
    a = Nginx.start("a");
    b = Nginx.start("b");
    c = Nginx.start("c");
    ok1 = Nginx.start("ok1");
    ok2 = Nginx.start("ok2");
    failing = Nginx.start(503, "failing");
    silent = RawServer.start(new byte[0]); // reads requests, never answers
    context = new SpringApplicationBuilder(App.class)
        .web(WebApplicationType.NONE)
        .properties(
            "ballast.clients.weighted.protocol=http",
            "ballast.clients.weighted.balancer=vnswrr",
            "ballast.clients.weighted.endpoints[0]=" + a.endpoint() + ";weight=1",
            "ballast.clients.weighted.endpoints[1]=" + b.endpoint() + ";weight=2",
            "ballast.clients.weighted.endpoints[2]=" + c.endpoint() + ";weight=3",
            "ballast.clients.mixed.protocol=http",
            "ballast.clients.mixed.balancer=p2c-peak-ewma",
            "ballast.clients.mixed.endpoints[0]=" + ok1.endpoint(),
            "ballast.clients.mixed.endpoints[1]=" + ok2.endpoint(),
            "ballast.clients.mixed.endpoints[2]=" + failing.endpoint(),
            "ballast.clients.stalled.protocol=http",
            "ballast.clients.stalled.timeout=500ms", // waited out twice: kept short
            "ballast.clients.stalled.late-answer-wait=0s",
            "ballast.clients.stalled.endpoints[0]=" + silent.endpoint(),
            "ballast.clients.keyed.protocol=http",
            "ballast.clients.keyed.balancer=ring-hash",
            "ballast.clients.keyed.endpoints[0]=" + a.endpoint(),
            "ballast.clients.keyed.endpoints[1]=" + b.endpoint(),
            "ballast.clients.keyed.endpoints[2]=" + c.endpoint(),
            // Port 1 on loopback: nothing listens, the connection is refused at once.
            "ballast.clients.refused.protocol=http",
            "ballast.clients.refused.max-attempts=1",
            "ballast.clients.refused.endpoints[0]=127.0.0.1:1")
        .run();
    restClient = context.getBean(RestClient.Builder.class).build();
    webClient = context.getBean(WebClient.Builder.class).build();
  }

  @AfterAll
  static void stop() throws Exception {
    if (context != null) {
      context.close();
    }
    for (AutoCloseable s : new AutoCloseable[] {a, b, c, ok1, ok2, failing, silent}) {
      if (s != null) {
        s.close();
      }
    }
  }

  @Test
  void restClientFollowsTheWeightsOfVnswrr() {
    assertThat(count(600, i -> restClient.get().uri(WEIGHTED, i).retrieve().body(String.class)))
        .isEqualTo(Map.of("a", 100, "b", 200, "c", 300));
  }

  @Test
  void webClientFollowsTheWeightsOfVnswrr() {
    assertThat(count(600, i -> webClient.get().uri(WEIGHTED, i).retrieve().bodyToMono(String.class)
        .block(WAIT)))
        .isEqualTo(Map.of("a", 100, "b", 200, "c", 300));
  }

  @Test
  void restTemplateFromBootsBuilderFollowsTheWeightsToo() {
    RestTemplate template = context.getBean(RestTemplateBuilder.class).build();
    assertThat(count(60, i -> template.getForObject(WEIGHTED, String.class, i)))
        .isEqualTo(Map.of("a", 10, "b", 20, "c", 30));
  }

  @Test
  void restClientSpares503BackendUnderP2cPeakEwma() throws Exception {
    assertFailingBackendSpared(() -> restClient.get().uri("http://mixed/")
        .exchange((req, resp) -> resp.getStatusCode().value()));
  }

  @Test
  void webClientSpares503BackendUnderP2cPeakEwma() throws Exception {
    assertFailingBackendSpared(() -> webClient.get().uri("http://mixed/")
        .exchangeToMono(resp -> resp.releaseBody().thenReturn(resp.statusCode().value()))
        .block(WAIT));
  }

  @Test
  void restClientCallEndsAtTheClientsDeadline() {
    assertThatThrownBy(() -> restClient.get().uri("http://stalled/x").retrieve()
        .body(String.class))
        .isInstanceOf(ResourceAccessException.class)
        .hasMessageContaining("Ballast client stalled")
        .hasMessageContaining("http://stalled/x")
        .cause().isInstanceOfSatisfying(DeadlineExceededException.class,
            e -> assertThat(e.timeout()).isEqualTo(Duration.ofMillis(500)));
  }

  @Test
  void webClientCallEndsAtTheClientsDeadline() {
    assertThatThrownBy(() -> webClient.get().uri("http://stalled/x").retrieve()
        .bodyToMono(String.class).block(WAIT))
        .isInstanceOf(WebClientRequestException.class)
        .hasMessageContaining("Ballast client stalled")
        .cause().isInstanceOfSatisfying(DeadlineExceededException.class,
            e -> assertThat(e.timeout()).isEqualTo(Duration.ofMillis(500)));
  }

  @Test
  void aConnectFailureIsSpringsRequestFailureWithBallastsAsCause() {
    assertThatThrownBy(() -> restClient.get().uri("http://refused/").retrieve()
        .toBodilessEntity())
        .isInstanceOf(ResourceAccessException.class)
        .hasMessageContaining("through Ballast client refused")
        .hasCauseInstanceOf(ConnectFailedException.class);
    assertThatThrownBy(() -> webClient.get().uri("http://refused/").retrieve()
        .toBodilessEntity().block(WAIT))
        .isInstanceOf(WebClientRequestException.class)
        .hasMessageContaining("through Ballast client refused")
        .hasCauseInstanceOf(ConnectFailedException.class);
  }

  @Test
  void aRequestAttributeSetsOneCallsDeadline() {
    Duration shorter = Duration.ofMillis(300);
    assertThatThrownBy(() -> restClient.get().uri("http://stalled/")
        .attribute(BallastClientHttpRequestFactory.TIMEOUT_ATTRIBUTE, shorter)
        .retrieve().body(String.class))
        .cause().isInstanceOfSatisfying(DeadlineExceededException.class,
            e -> assertThat(e.timeout()).isEqualTo(shorter));
    assertThatThrownBy(() -> webClient.get().uri("http://stalled/")
        .attribute(BallastClientHttpRequestFactory.TIMEOUT_ATTRIBUTE, shorter)
        .retrieve().bodyToMono(String.class).block(WAIT))
        .cause().isInstanceOfSatisfying(DeadlineExceededException.class,
            e -> assertThat(e.timeout()).isEqualTo(shorter));
  }

  @Test
  void aRequestAttributeGivesTheCallItsKey() {
    Map<String, Integer> answers = new HashMap<>();
    for (int i = 0; i < 20; i++) {
      String key = "user-" + (i % 2);
      String viaRest = restClient.get().uri("http://keyed/")
          .attribute(BallastClientHttpRequestFactory.KEY_ATTRIBUTE, key)
          .retrieve().body(String.class);
      String viaWeb = webClient.get().uri("http://keyed/")
          .attribute(BallastClientHttpRequestFactory.KEY_ATTRIBUTE, key)
          .retrieve().bodyToMono(String.class).block(WAIT);
      assertThat(viaWeb).isEqualTo(viaRest);
      answers.merge(key + "->" + viaRest, 1, Integer::sum);
    }
    // Each key always reached one backend, through either client.
    assertThat(answers).hasSize(2).containsValues(10, 10);
  }

  @Test
  void otherHostsPassThroughSpringsOwnClients() throws Exception {
    String plain = "http://" + a.endpoint() + "/";
    long before = a.requests();
    assertThat(restClient.get().uri(plain).retrieve().body(String.class)).isEqualTo("a");
    assertThat(webClient.get().uri(plain).retrieve().bodyToMono(String.class).block(WAIT))
        .isEqualTo("a");
    assertThat(a.requests()).isEqualTo(before + 2);
  }

  /** Calls {@code http://weighted/items?i=<i>} sequentially and counts the backends that answered. */
  private static Map<String, Integer> count(int calls, IntFunction<String> call) {
    Map<String, Integer> answers = new HashMap<>();
    for (int i = 0; i < calls; i++) {
      answers.merge(call.apply(i), 1, Integer::sum);
    }
    return answers;
  }

  /**
   * Makes 1,000 calls through the client {@code mixed} and checks that the backend answering 503
   * got under 2% of the requests the three backends received (retries included).
   */
  private static void assertFailingBackendSpared(java.util.concurrent.Callable<Integer> call)
      throws Exception {
    long[] before = {ok1.requests(), ok2.requests(), failing.requests()};
    int answered200 = 0;
    for (int i = 0; i < 1_000; i++) {
      if (call.call() == 200) {
        answered200++;
      }
    }
    long good = ok1.requests() - before[0] + ok2.requests() - before[1];
    long bad = failing.requests() - before[2];
    double share = (double) bad / (good + bad);
    System.out.printf("503 backend: %d of %d requests (%.2f%%); %d of 1000 calls answered 200%n",
        bad, good + bad, 100 * share, answered200);
    assertThat(share).as("share of the 503 backend").isLessThan(0.02);
    // The 503s it did get were retried on the healthy backends.
    assertThat(answered200).isGreaterThanOrEqualTo(1_000 - (int) bad);
  }

  /** The application: auto-configuration and nothing else. */
  @SpringBootConfiguration(proxyBeanMethods = false)
  @EnableAutoConfiguration
  static class App {}
}
