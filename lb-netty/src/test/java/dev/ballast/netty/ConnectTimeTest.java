package dev.ballast.netty;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.core.Algorithm;
import dev.ballast.core.BalancerConfig;
import dev.ballast.core.Endpoint;
import dev.ballast.netty.framed.FramedServer;
import dev.ballast.netty.internal.Transport;
import dev.ballast.netty.testing.Certificates;
import io.netty.channel.EventLoopGroup;
import io.netty.handler.ssl.SslContextBuilder;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The balancer's sample of a call measures the request, not the connection it waited for: a
 * first call whose TLS connection took 500 ms to open (the server's event loop held, the fake
 * clock moved meanwhile) and whose answer came at once feeds peak EWMA a sample of 0, while the
 * caller saw 500 ms.
 */
class ConnectTimeTest {

  private static final long MS = 1_000_000L;

  @Test
  void theFirstCallsSampleLeavesOutTheConnectionsOpening() throws Exception {
    AtomicLong now = new AtomicLong(1_000_000_000L);
    EventLoopGroup serverLoop = Transport.newGroup(1, "held-server");
    CountDownLatch release = new CountDownLatch(1);
    Certificates localhost = Certificates.localhost(); // shared by the test classes: not closed
    try (FramedServer server = FramedServer.builder().handler(FramedServer.echo())
            .eventLoopGroup(serverLoop)
            .tls(SslContextBuilder.forServer(localhost.certificate().toFile(),
                localhost.privateKey().toFile()).build())
            .start();
        BallastClient<byte[], byte[]> client = BallastClient.framed()
            .endpoints(List.of(Endpoint.of("localhost", server.port())))
            .tls(TlsConfig.builder().trustCertificates(localhost.certificate()).build())
            .balancer(Algorithm.P2C_PEAK_EWMA)
            .balancerConfig(BalancerConfig.builder().ticker(now::get).build())
            .ticker(now::get)
            .timeout(Duration.ofSeconds(30))
            .build()) {
      // The server cannot take part in the handshake until released.
      serverLoop.execute(() -> {
        try {
          release.await(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      });
      long start = now.get();
      CompletableFuture<byte[]> reply = client.call(new byte[] {7});
      now.addAndGet(500 * MS); // the connection takes 500 ms to open
      release.countDown();
      assertThat(reply.get(30, TimeUnit.SECONDS)).containsExactly(7);
      assertThat(now.get() - start).isEqualTo(500 * MS); // what the caller waited
      EndpointStats s = client.stats().get(0);
      // Before: the 500 ms of the opening became the estimate, and kept the node out for a minute.
      assertThat(s.rttEstimateNanos()).isLessThan(1.0 * MS);
    } finally {
      release.countDown();
      serverLoop.shutdownGracefully(0, 1, TimeUnit.SECONDS);
    }
  }
}
