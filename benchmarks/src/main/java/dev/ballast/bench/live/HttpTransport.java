package dev.ballast.bench.live;

import dev.ballast.core.Algorithm;
import dev.ballast.core.Balancer;
import dev.ballast.core.BalancerConfig;
import dev.ballast.core.Endpoint;
import dev.ballast.core.load.WeightedRoundRobinConfig;
import dev.ballast.core.loadaware.WeightedRoundRobin;
import dev.ballast.netty.BalancerFactory;
import dev.ballast.netty.BallastClient;
import dev.ballast.netty.http.HttpRequest;
import dev.ballast.netty.http.HttpResponse;
import dev.ballast.netty.internal.Transport;
import dev.ballast.netty.outlier.OutlierDetection;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.DefaultHttp2HeadersFrame;
import io.netty.handler.codec.http2.Http2FrameCodecBuilder;
import io.netty.handler.codec.http2.Http2FrameStream;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.util.concurrent.GlobalEventExecutor;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;

/**
 * HTTP/2 (h2c) servers on Netty that answer each request once its {@link CapacityServer} work is
 * done, with the server's last utilization and answers per second in Envoy's {@code
 * endpoint-load-metrics} header (TEXT form, {@code application_utilization} and {@code
 * rps_fractional}); the client is lb-netty's {@code BallastClient.http2()}.
 */
final class HttpTransport implements LiveCapacity.Transport {

  private static final HttpRequest GET = HttpRequest.get("/");

  @Override
  public LiveCapacity.Cluster open(String policy, List<CapacityServer> work) throws Exception {
    ChannelGroup channels = new DefaultChannelGroup(GlobalEventExecutor.INSTANCE);
    List<Endpoint> endpoints = new ArrayList<>();
    BallastClient<HttpRequest, HttpResponse> client;
    try {
      for (CapacityServer w : work) {
        Channel server = Transport.configure(new ServerBootstrap(), Transport.sharedGroup())
            .childHandler(new ChannelInitializer<Channel>() {
              @Override
              protected void initChannel(Channel ch) {
                channels.add(ch);
                ch.pipeline().addLast(Http2FrameCodecBuilder.forServer().build(), new Answer(w));
              }
            })
            .bind("127.0.0.1", 0).sync().channel();
        channels.add(server);
        endpoints.add(Endpoint.of("127.0.0.1", ((InetSocketAddress) server.localAddress()).getPort()));
      }
      BallastClient.Builder<HttpRequest, HttpResponse> b = BallastClient.http2()
          .endpoints(endpoints)
          .timeout(LiveCapacity.DEADLINE)
          .maxAttempts(1)
          // calls at the deadline are counted in the table, not logged one by one
          .slowRequestThreshold(Duration.ofMinutes(1))
          .outlierDetection(OutlierDetection.disabled());
      client = (policy.equals(WeightedRoundRobin.NAME) ? b.balancer(new ShortBlackout())
          : b.balancer(Algorithm.fromName(policy))).build();
    } catch (Exception | Error e) {
      channels.close().sync();
      throw e;
    }
    return new LiveCapacity.Cluster() {
      @Override
      public CompletableFuture<?> call() {
        return client.call(GET);
      }

      @Override
      public void close() throws InterruptedException {
        client.close();
        channels.close().sync();
      }
    };
  }

  /** {@code weighted_round_robin} with the run's blackout period. */
  private static final class ShortBlackout implements BalancerFactory {
    @Override
    public <T> Balancer<T> create(BalancerConfig config) {
      return new WeightedRoundRobin<>(config, WeightedRoundRobinConfig.builder()
          .blackoutPeriod(LiveCapacity.BLACKOUT).build());
    }
  }

  /** Serves each stream once its request has ended; answers with headers only. */
  private static final class Answer extends Http2Requests {
    private final CapacityServer work;

    Answer(CapacityServer work) {
      this.work = work;
    }

    @Override
    protected void serve(ChannelHandlerContext ctx, Http2FrameStream stream) {
      work.submit(() -> {
        Http2Headers headers = new DefaultHttp2Headers().status("200");
        double qps = work.qps();
        if (work.utilization() >= 0 && qps > 0) {
          headers.set("endpoint-load-metrics", String.format(Locale.ROOT,
              "TEXT application_utilization=%.4f, rps_fractional=%.1f", work.utilization(), qps));
        }
        ctx.writeAndFlush(new DefaultHttp2HeadersFrame(headers, true).stream(stream));
      });
    }
  }
}
