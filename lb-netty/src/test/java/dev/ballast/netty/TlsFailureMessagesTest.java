package dev.ballast.netty;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.netty.framed.FramedServer;
import dev.ballast.netty.testing.RawServer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A TLS connection that cannot be made says why: a server that never answers the handshake
 * (the call's deadline comes first), and a server that does not speak TLS and closes.
 */
class TlsFailureMessagesTest {

  @Test
  void aStalledHandshakeIsNamedWhenTheCallGivesUpWaiting() throws Exception {
    try (RawServer silent = RawServer.start(new byte[0]);
        BallastClient<byte[], byte[]> client = BallastClient.framed()
            .endpoints(List.of(silent.endpoint())).timeout(Duration.ofMillis(300))
            .pool(PoolConfig.builder().connectTimeout(Duration.ofSeconds(5)).build())
            .maxAttempts(1).tls(TlsConfig.insecureForTestsOnly()).build()) {
      assertThatThrownBy(() -> client.call(new byte[] {1}).get(10, TimeUnit.SECONDS))
          .cause().isInstanceOf(BallastException.class)
          .hasMessageContaining("TLS handshake, not done")
          .hasMessageContaining(silent.endpoint().address());
    }
  }

  @Test
  void aStalledHandshakeIsNamedWhenTheAcquireGivesUp() throws Exception {
    try (RawServer silent = RawServer.start(new byte[0]);
        BallastClient<byte[], byte[]> client = BallastClient.framed()
            .endpoints(List.of(silent.endpoint())).timeout(Duration.ofSeconds(5))
            .pool(PoolConfig.builder().connectTimeout(Duration.ofSeconds(5))
                .acquireTimeout(Duration.ofMillis(300)).build())
            .maxAttempts(1).tls(TlsConfig.insecureForTestsOnly()).build()) {
      assertThatThrownBy(() -> client.call(new byte[] {1}).get(10, TimeUnit.SECONDS))
          .cause().isInstanceOf(AcquireTimeoutException.class)
          .hasMessageContaining("no connection free within 300 ms")
          .hasMessageContaining("TLS handshake, not done");
    }
  }

  @Test
  void aServerNotSpeakingTlsIsNamed() throws Exception {
    FramedServer plaintext = FramedServer.start(FramedServer.echo());
    try (BallastClient<byte[], byte[]> client = BallastClient.framed()
        .endpoints(List.of(plaintext.endpoint())).timeout(Duration.ofSeconds(5))
        .maxAttempts(1).tls(TlsConfig.insecureForTestsOnly()).build()) {
      assertThatThrownBy(() -> client.call(new byte[] {1}).get(10, TimeUnit.SECONDS))
          .cause().isInstanceOf(TlsHandshakeException.class)
          .hasMessageContaining("closed by the server during the TLS handshake")
          .hasMessageContaining("not speaking TLS");
    } finally {
      plaintext.close();
    }
  }
}
