package dev.ballast.netty;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.core.Algorithm;
import dev.ballast.netty.http.HttpRequest;
import dev.ballast.netty.http.HttpResponse;
import dev.ballast.netty.outlier.OutlierDetection;
import dev.ballast.netty.retry.Backoff;
import dev.ballast.netty.retry.RetryPolicy;
import dev.ballast.netty.testing.Await;
import dev.ballast.netty.testing.Nginx;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * HTTP's default classifier against real nginx: which statuses are failures, which failures are
 * retried (idempotent methods, or the server said it did not process the request), and {@code
 * Retry-After}.
 */
class HttpClassificationTest {

  private static final int CALLS = 20;

  private static BallastClient.Builder<HttpRequest, HttpResponse> client(Nginx... servers) {
    return BallastClient.http()
        .endpoints(List.of(servers).stream().map(Nginx::endpoint).toList())
        .balancer(Algorithm.ROUND_ROBIN)
        .timeout(Duration.ofSeconds(5))
        .retryPolicy(RetryPolicy.builder().backoff(Backoff.none()).build())
        .outlierDetection(OutlierDetection.disabled());
  }

  @Test
  void a500IsRetriedForAGetButNotForAPost() throws Exception {
    try (Nginx bad = Nginx.start(500, "oops");
        Nginx good = Nginx.start("ok");
        BallastClient<HttpRequest, HttpResponse> client = client(bad, good).build()) {
      for (int i = 0; i < CALLS; i++) {
        assertThat(client.call(HttpRequest.get("/" + i)).get(10, TimeUnit.SECONDS).status())
            .isEqualTo(200);
      }
      long getsThatMet500 = bad.requests();
      assertThat(getsThatMet500).isPositive();
      assertThat(client.callStats().retries()).isEqualTo(getsThatMet500);
      int served500 = 0;
      for (int i = 0; i < CALLS; i++) {
        HttpResponse r = client.call(HttpRequest.post("/p", "x")).get(10, TimeUnit.SECONDS);
        served500 += r.status() == 500 ? 1 : 0;
      }
      // A POST that met the 500 gets it: the request may have had an effect.
      assertThat(served500).isPositive().isEqualTo(bad.requests() - getsThatMet500);
      assertThat(client.callStats().retries()).isEqualTo(getsThatMet500);
      // As idempotent by the caller's word, a POST is retried too.
      HttpResponse r = client.call(HttpRequest.post("/p", "x"), CallOptions.idempotent())
          .get(10, TimeUnit.SECONDS);
      assertThat(r.status()).isEqualTo(200);
    }
  }

  @Test
  void a503OrA429IsRetriedWhateverTheMethodTheServerDidNotProcessIt() throws Exception {
    try (Nginx busy = Nginx.start(503, "busy");
        Nginx limited = Nginx.start(429, "slow down", "Retry-After", "0");
        Nginx good = Nginx.start("ok");
        BallastClient<HttpRequest, HttpResponse> client =
            client(busy, limited, good).maxAttempts(3).build()) {
      for (int i = 0; i < CALLS; i++) {
        HttpResponse r = client.call(HttpRequest.post("/p", "x")).get(10, TimeUnit.SECONDS);
        assertThat(r.status()).isEqualTo(200);
      }
      assertThat(busy.requests() + limited.requests()).isPositive()
          .isEqualTo(client.callStats().retries());
    }
  }

  @Test
  void aRetryAfterBeyondTheDeadlineIsNotRetriedAndTheCallerGetsTheAnswer() throws Exception {
    try (Nginx busy = Nginx.start(503, "come back in an hour", "Retry-After", "3600");
        Nginx good = Nginx.start("ok");
        BallastClient<HttpRequest, HttpResponse> client = client(busy, good).build()) {
      Set<String> served503 = new TreeSet<>();
      for (int i = 0; i < CALLS; i++) {
        HttpResponse r = client.call(HttpRequest.get("/" + i)).get(10, TimeUnit.SECONDS);
        if (r.status() == 503) {
          assertThat(r.header("retry-after")).isEqualTo("3600");
          assertThat(r.bodyText()).isEqualTo("come back in an hour");
          served503.add("GET /" + i);
        }
      }
      Supplier<String> logs = () -> "busy: " + logged(busy) + "\ngood: " + logged(good);
      assertThat(client.callStats().retries()).as(logs).isZero();
      // Every request that met the 503 is one whose caller got it. Compared by request line (a
      // stranger's connection to the port would be a 400 with no request line of ours), once
      // nginx has logged the last answer, which it does after sending it.
      Await.until(Duration.ofSeconds(5), logs,
          () -> requestsAnswered(busy, 503).containsAll(served503));
      assertThat(served503).as(logs).isNotEmpty().isEqualTo(requestsAnswered(busy, 503));
    }
  }

  @Test
  void aClassifierOfOneselfReplacesTheDefault() throws Exception {
    // This service's 404s are failures worth retrying elsewhere.
    ResponseClassifier<HttpRequest, HttpResponse> notFoundFails = (attempt, r, e) ->
        r != null && r.status() == 404 ? Classification.RETRYABLE_FAILURE
            : ResponseClassifier.http().classify(attempt, r, e);
    try (Nginx missing = Nginx.start(404, "no");
        Nginx good = Nginx.start("ok");
        BallastClient<HttpRequest, HttpResponse> defaults = client(missing, good).build();
        BallastClient<HttpRequest, HttpResponse> custom =
            client(missing, good).classifier(notFoundFails).build()) {
      int notFound = 0;
      for (int i = 0; i < CALLS; i++) {
        notFound += defaults.call(HttpRequest.get("/")).get(10, TimeUnit.SECONDS).status() == 404
            ? 1 : 0;
        assertThat(custom.call(HttpRequest.get("/")).get(10, TimeUnit.SECONDS).status())
            .isEqualTo(200);
      }
      assertThat(notFound).isPositive();
      assertThat(defaults.callStats().retries()).isZero();
      assertThat(custom.callStats().retries()).isPositive();
    }
  }

  /** The request lines ("GET /path") nginx logged with {@code status}. */
  private static Set<String> requestsAnswered(Nginx nginx, int status) {
    Pattern line = Pattern.compile("\"(\\S+ \\S+) HTTP/1\\.1\" " + status + " ");
    Set<String> requests = new TreeSet<>();
    for (String l : logged(nginx)) {
      Matcher m = line.matcher(l);
      if (m.find()) {
        requests.add(m.group(1));
      }
    }
    return requests;
  }

  private static List<String> logged(Nginx nginx) {
    try {
      return nginx.accessLog();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
