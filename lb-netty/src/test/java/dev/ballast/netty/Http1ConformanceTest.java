package dev.ballast.netty;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.core.Endpoint;
import dev.ballast.netty.error.ProtocolErrorException;
import dev.ballast.netty.http.HttpRequest;
import dev.ballast.netty.http.HttpResponse;
import dev.ballast.netty.testing.Await;
import dev.ballast.netty.testing.LeakCheckExtension;
import dev.ballast.netty.testing.Nginx;
import dev.ballast.netty.testing.RawServer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * HTTP/1.1 by RFC 9110 and 9112, against real nginx and raw servers that misbehave on purpose:
 * one test per way the client used to get it wrong.
 */
class Http1ConformanceTest {

  private static BallastClient<HttpRequest, HttpResponse> client(Endpoint endpoint) {
    return BallastClient.http().endpoints(List.of(endpoint)).timeout(Duration.ofSeconds(5))
        .build();
  }

  private static HttpResponse call(BallastClient<HttpRequest, HttpResponse> client,
      HttpRequest request) throws Exception {
    return client.call(request).get(10, TimeUnit.SECONDS);
  }

  @Test
  void interimResponsesAreSkippedAndTheFinalOneAnswers() throws Exception {
    // RFC 9110, section 15.2: a 1xx is interim; the final answer follows on the same connection.
    try (RawServer server = RawServer.start("HTTP/1.1 100 Continue\r\n\r\n"
            + "HTTP/1.1 103 Early Hints\r\nLink: </style.css>; rel=preload\r\n\r\n"
            + "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nfinal");
        BallastClient<HttpRequest, HttpResponse> client = client(server.endpoint())) {
      for (int i = 0; i < 3; i++) {
        HttpResponse r = call(client, HttpRequest.post("/upload", "data " + i));
        assertThat(r.status()).isEqualTo(200);
        assertThat(r.bodyText()).isEqualTo("final");
      }
      assertThat(server.accepted()).isEqualTo(1); // each answer ended where it should
    }
  }

  @Test
  void anUnsolicitedSwitchingProtocolsFailsTheAttemptAndClosesTheConnection() throws Exception {
    try (RawServer server = RawServer.start("HTTP/1.1 101 Switching Protocols\r\n"
            + "Upgrade: h2c\r\nConnection: Upgrade\r\n\r\n\0\0\0\4\0\0\0\0\0 and more bytes");
        BallastClient<HttpRequest, HttpResponse> client = client(server.endpoint())) {
      assertThatThrownBy(() -> call(client, HttpRequest.get("/")))
          .isInstanceOf(ExecutionException.class)
          .cause().isInstanceOf(ProtocolErrorException.class)
          .hasMessageContaining("101")
          .hasMessageContaining(server.endpoint().address());
      Await.until(Duration.ofSeconds(10), () -> server.connections() + " connections",
          () -> server.connections() == 0);
      assertThat(LeakCheckExtension.collectLeaks()).isEmpty();
    }
  }

  @Test
  void repeatedHeadersKeepEveryValue() throws Exception {
    try (Nginx nginx = Nginx.start(200, "ok", "Set-Cookie", "a=1", "Set-Cookie", "b=2");
        BallastClient<HttpRequest, HttpResponse> client = client(nginx.endpoint())) {
      HttpResponse r = call(client, HttpRequest.get("/"));
      // Set-Cookie values cannot be joined with commas (RFC 9110, section 5.3).
      assertThat(r.headers().getAll("Set-Cookie")).containsExactly("a=1", "b=2");
      assertThat(r.header("SET-COOKIE")).isEqualTo("a=1");
      assertThat(r.headers().names()).contains("set-cookie", "content-type");
    }
  }

  @Test
  void theCallersHostIsSentAndTheDefaultIsTheEndpointsHostName() throws Exception {
    try (Nginx nginx = Nginx.start(200, "$http_host");
        BallastClient<HttpRequest, HttpResponse> client = client(
            Endpoint.of("localhost", nginx.endpoint().port()))) {
      assertThat(call(client, HttpRequest.get("/").withHeader("Host", "api.example"))
          .bodyText()).isEqualTo("api.example");
      assertThat(call(client, HttpRequest.get("/")).bodyText())
          .isEqualTo("localhost:" + nginx.endpoint().port());
    }
  }

  @Test
  void theAnswerToAHeadHasNoBodyWhateverItsLengthSays() throws Exception {
    // RFC 9110, section 9.3.2, after an interim answer too: the length is the GET's.
    try (RawServer server = RawServer.start("HTTP/1.1 103 Early Hints\r\n\r\n"
            + "HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n");
        BallastClient<HttpRequest, HttpResponse> client = client(server.endpoint())) {
      for (int i = 0; i < 2; i++) {
        HttpResponse r = call(client, HttpRequest.of("HEAD", "/", new byte[0]));
        assertThat(r.status()).isEqualTo(200);
        assertThat(r.header("content-length")).isEqualTo("1000");
        assertThat(r.body()).isEmpty();
      }
      assertThat(server.accepted()).isEqualTo(1);
    }
  }

  @Test
  void aBodyOverTheLimitFailsWithAProtocolError() throws Exception {
    try (Nginx nginx = Nginx.start("x".repeat(100));
        BallastClient<HttpRequest, HttpResponse> client = BallastClient.http()
            .endpoints(List.of(nginx.endpoint())).maxFrameSize(64).build()) {
      assertThatThrownBy(() -> call(client, HttpRequest.get("/")))
          .cause().isInstanceOf(ProtocolErrorException.class)
          .hasMessageContaining("response body: more than 64 bytes")
          .hasMessageContaining(nginx.endpoint().address());
    }
  }

  @Test
  void conflictingFramingIsRejectedBeforeAByteIsSent() throws Exception {
    // Transfer-Encoding beside the Content-Length the client sets: a server trusting the length
    // would read the rest as a second request (RFC 9112, section 6.3: request smuggling).
    try (RawServer server = RawServer.start("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n");
        BallastClient<HttpRequest, HttpResponse> client = client(server.endpoint())) {
      String smuggled = "0\r\n\r\nGET /admin HTTP/1.1\r\nHost: x\r\n\r\n";
      assertThatThrownBy(() -> client.call(HttpRequest.post("/", smuggled)
              .withHeader("Transfer-Encoding", "chunked")).get(10, TimeUnit.SECONDS))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("transfer-encoding");
      assertThatThrownBy(() -> HttpRequest.post("/", "abc").withHeader("Content-Length", "1"))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("content-length: 1 (expected: 3");
      assertThat(server.accepted()).isZero();
      assertThat(server.received()).isZero();
    }
  }

  @Test
  void invalidRequestsFailAtOnceAndTheConnectionStaysUsable() throws Exception {
    try (Nginx nginx = Nginx.start("ok");
        BallastClient<HttpRequest, HttpResponse> client = client(nginx.endpoint())) {
      assertThat(call(client, HttpRequest.get("/first")).bodyText()).isEqualTo("ok");
      assertThatThrownBy(() -> client.call(HttpRequest.get("/a b")))
          .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("uri");
      assertThatThrownBy(() -> client.call(HttpRequest.get("/a\r\nX-Injected: 1")))
          .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("uri");
      assertThatThrownBy(() -> client.call(HttpRequest.of("GE T", "/", new byte[0])))
          .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("method");
      assertThatThrownBy(() -> HttpRequest.get("/").withHeader("X-A", "1\r\nX-B: 2"))
          .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("x-a");
      assertThat(call(client, HttpRequest.get("/second")).bodyText()).isEqualTo("ok");
      assertThat(nginx.requests()).isEqualTo(2);
      assertThat(client.stats().get(0).connections()).isEqualTo(1);
    }
  }
}
