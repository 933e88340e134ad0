package dev.ballast.netty;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.core.Endpoint;
import dev.ballast.netty.error.TlsHandshakeException;
import dev.ballast.netty.framed.FramedServer;
import dev.ballast.netty.http.HttpRequest;
import dev.ballast.netty.http.HttpResponse;
import dev.ballast.netty.testing.Certificates;
import dev.ballast.netty.testing.LeakCheckExtension;
import dev.ballast.netty.testing.Nginx;
import io.netty.handler.ssl.SslContextBuilder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLException;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * TLS for the framed protocol and HTTP, against a framed server and nginx speaking TLS with a
 * certificate made by the test for {@code localhost} only: the server is checked against the
 * endpoint's host name, and a wrong one fails with a typed error naming the endpoint.
 */
class TlsTest {

  private static Certificates localhost;

  @BeforeAll
  static void makeCertificate() throws Exception {
    localhost = Certificates.localhost();
  }

  private static TlsConfig trustingTheTestCertificate() {
    return TlsConfig.builder().trustCertificates(localhost.certificate()).build();
  }

  private static FramedServer framedTlsServer() throws SSLException {
    return FramedServer.builder().tls(SslContextBuilder.forServer(
        localhost.certificate().toFile(), localhost.privateKey().toFile()).build()).start();
  }

  @Test
  void framedCallsGoOverTls() throws Exception {
    FramedServer server = framedTlsServer();
    try (BallastClient<byte[], byte[]> client = BallastClient.framed()
        .endpoints(List.of(Endpoint.of("localhost", server.port())))
        .tls(trustingTheTestCertificate()).build()) {
      for (int i = 0; i < 20; i++) {
        byte[] reply = client.call(("hello " + i).getBytes(StandardCharsets.UTF_8))
            .get(10, TimeUnit.SECONDS);
        assertThat(new String(reply, StandardCharsets.UTF_8)).isEqualTo("hello " + i);
      }
      assertThat(server.requests()).isEqualTo(20);
    } finally {
      server.close();
    }
  }

  @Test
  void httpCallsGoOverTlsToNginx() throws Exception {
    try (Nginx nginx = Nginx.builder().tls(localhost).body("secure $scheme").start();
        BallastClient<HttpRequest, HttpResponse> client = BallastClient.http()
            .endpoints(List.of(Endpoint.of("localhost", nginx.endpoint().port())))
            .tls(trustingTheTestCertificate()).build()) {
      for (int i = 0; i < 5; i++) {
        HttpResponse r = client.call(HttpRequest.get("/" + i)).get(10, TimeUnit.SECONDS);
        assertThat(r.status()).isEqualTo(200);
        assertThat(r.bodyText()).isEqualTo("secure https");
      }
      assertThat(nginx.requests()).isEqualTo(5);
      assertThat(client.stats().get(0).connections()).isEqualTo(1); // kept alive
    }
  }

  @Test
  void aClientCertificateIsPresentedWhenTheServerAsksForOne() throws Exception {
    // nginx requires a client certificate signed by (here: being) the test certificate.
    try (Nginx nginx = Nginx.builder().tls(localhost).body("client $ssl_client_verify")
            .directive("ssl_verify_client on;")
            .directive("ssl_client_certificate " + localhost.certificate() + ";").start();
        BallastClient<HttpRequest, HttpResponse> withCert = BallastClient.http()
            .endpoints(List.of(Endpoint.of("localhost", nginx.endpoint().port())))
            .tls(TlsConfig.builder().trustCertificates(localhost.certificate())
                .keyPair(localhost.certificate(), localhost.privateKey()).build()).build();
        BallastClient<HttpRequest, HttpResponse> without = BallastClient.http()
            .endpoints(List.of(Endpoint.of("localhost", nginx.endpoint().port())))
            .tls(trustingTheTestCertificate()).build()) {
      HttpResponse r = withCert.call(HttpRequest.get("/")).get(10, TimeUnit.SECONDS);
      assertThat(r.status() + " " + r.bodyText()).isEqualTo("200 client SUCCESS");
      // nginx answers 400 "No required SSL certificate was sent"
      HttpResponse refused = without.call(HttpRequest.get("/")).get(10, TimeUnit.SECONDS);
      assertThat(refused.status()).isEqualTo(400);
    }
  }

  @Test
  void aWrongHostNameFailsWithATypedErrorNamingTheEndpoint() throws Exception {
    // The certificate names localhost; the endpoint is written 127.0.0.1.
    try (Nginx nginx = Nginx.builder().tls(localhost).body("secret").start();
        BallastClient<HttpRequest, HttpResponse> client = BallastClient.http()
            .endpoints(List.of(nginx.endpoint())).timeout(Duration.ofSeconds(10))
            .tls(trustingTheTestCertificate()).build()) {
      assertThatThrownBy(() -> client.call(HttpRequest.get("/")).get(20, TimeUnit.SECONDS))
          .isInstanceOf(ExecutionException.class)
          .cause().isInstanceOf(TlsHandshakeException.class)
          .hasMessageContaining("TLS handshake failed")
          .hasMessageContaining(nginx.endpoint().address())
          .hasRootCauseInstanceOf(java.security.cert.CertificateException.class);
      assertThat(nginx.requests()).isZero();
    }
    assertThat(LeakCheckExtension.collectLeaks()).isEmpty();
  }

  @Test
  void aWrongHostNameFailsTheFramedProtocolToo() throws Exception {
    FramedServer server = framedTlsServer();
    try (BallastClient<byte[], byte[]> client = BallastClient.framed()
        .endpoints(List.of(server.endpoint())).timeout(Duration.ofSeconds(10))
        .tls(trustingTheTestCertificate()).build()) {
      assertThatThrownBy(() -> client.call(new byte[] {1}).get(20, TimeUnit.SECONDS))
          .cause().isInstanceOf(TlsHandshakeException.class)
          .hasMessageContaining(server.endpoint().address());
      assertThat(server.requests()).isZero();
    } finally {
      server.close();
    }
  }

  @Test
  void anUntrustedCertificateFailsAndTheInsecureTestModeAcceptsIt() throws Exception {
    FramedServer server = framedTlsServer();
    try (BallastClient<byte[], byte[]> checking = BallastClient.framed()
            .endpoints(List.of(Endpoint.of("localhost", server.port())))
            .timeout(Duration.ofSeconds(10)).maxAttempts(1).tls(TlsConfig.defaults()).build();
        BallastClient<byte[], byte[]> insecure = BallastClient.framed()
            .endpoints(List.of(server.endpoint()))
            .tls(TlsConfig.insecureForTestsOnly()).build()) {
      assertThatThrownBy(() -> checking.call(new byte[] {1}).get(20, TimeUnit.SECONDS))
          .cause().isInstanceOf(TlsHandshakeException.class)
          .hasMessageContaining("localhost:" + server.port());
      assertThat(insecure.call(new byte[] {7}).get(10, TimeUnit.SECONDS)).containsExactly(7);
    } finally {
      server.close();
    }
  }
}
