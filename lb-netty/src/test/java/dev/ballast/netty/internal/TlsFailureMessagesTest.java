package dev.ballast.netty.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.core.Endpoint;
import dev.ballast.netty.BallastClient;
import dev.ballast.netty.TlsConfig;
import dev.ballast.netty.error.AcquireTimeoutException;
import dev.ballast.netty.error.BallastException;
import dev.ballast.netty.error.TlsHandshakeException;
import dev.ballast.netty.framed.FrameDecoder;
import dev.ballast.netty.framed.FramedServer;
import dev.ballast.netty.pool.PoolConfig;
import dev.ballast.netty.testing.Await;
import dev.ballast.netty.testing.RawServer;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.util.InsecureTrustManagerFactory;
import java.time.Duration;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLException;
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

  /**
   * The race a fast loopback makes: the handshake has failed and the close has emptied the
   * pipeline before the connect listener runs. The listener still names the TLS failure (it
   * said "reset during connect" when it read the TLS handler from the emptied pipeline).
   */
  @Test
  void aHandshakeThatFailedBeforeTheConnectListenerRanIsNamed() throws Exception {
    FramedServer plaintext = FramedServer.start(FramedServer.echo());
    try {
      Endpoint ep = plaintext.endpoint();
      SslContext tls = SslContextBuilder.forClient()
          .trustManager(InsecureTrustManagerFactory.INSTANCE).build();
      FramedProtocol protocol = new FramedProtocol(FrameDecoder.DEFAULT_MAX_FRAME_SIZE, 16, tls);
      Connector<byte[], byte[]> connector = new Connector<>(ep,
          PoolConfig.builder().connectTimeout(Duration.ofSeconds(5)).build(), protocol,
          new LoopSpread(Transport.sharedGroup()), System::nanoTime, new SplittableRandom(1));
      // the connector's pipeline, opened by hand so that its listener can run late
      Bootstrap b = Transport.configure(new Bootstrap(), Transport.sharedGroup(), 5000)
          .handler(new ChannelInitializer<Channel>() {
            @Override
            protected void initChannel(Channel ch) {
              SslHandler h = tls.newHandler(ch.alloc(), ep.host(), ep.port());
              ch.attr(Connector.TLS).set(h);
              ch.pipeline().addLast(h);
              protocol.init(ch.pipeline(), ep);
            }
          });
      ChannelFuture f = b.connect(ep.host(), ep.port()).sync();
      // the plaintext server reads the ClientHello as a frame header far over its limit: closes
      assertThat(f.channel().closeFuture().await(5, TimeUnit.SECONDS)).isTrue();
      Await.until(Duration.ofSeconds(5), () -> "pipeline still holds " + f.channel().pipeline(),
          () -> f.channel().pipeline().first() == null);

      CompletableFuture<Throwable> heard = new CompletableFuture<>();
      f.channel().eventLoop().submit(() -> connector.connected(f,
          (c, e) -> heard.complete(e))).sync();

      assertThat(heard.get(5, TimeUnit.SECONDS)).isInstanceOf(SSLException.class)
          .hasMessageContaining("closed by the server during the TLS handshake");
    } finally {
      plaintext.close();
    }
  }
}
