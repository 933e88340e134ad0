package dev.ballast.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.netty.BallastClient;
import dev.ballast.netty.framed.FramedServer;
import io.grpc.ManagedChannel;
import io.grpc.internal.JsonParser;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.micrometer.core.instrument.Metrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * A Prometheus scrape (Micrometer's Prometheus registry) of one Spring client over 6 real
 * framed backends and one gRPC channel over 6 real gRPC servers, after calls to each: every tag
 * value is bounded (no endpoint list), and the default series fit in a third of the 678 lines
 * the same scrape printed when latency histograms were on by default and the channel's tag held
 * its whole target.
 */
class PrometheusScrapeTest {

  private static final Pattern LABEL = Pattern.compile("(\\w+)=\"((?:[^\"\\\\]|\\\\.)*)\"");

  @Test
  void oneClientAndOneChannelOfSixEndpointsPrintAFewHundredLinesWithBoundedTags()
      throws Exception {
    PrometheusMeterRegistry prometheus = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    Metrics.addRegistry(prometheus); // the gRPC policies' meters go to the global registry
    List<FramedServer> backends = new ArrayList<>();
    ManagedChannel channel = null;
    try (GrpcServers grpc = GrpcServers.start(6)) {
      StringBuilder endpoints = new StringBuilder();
      StringBuilder target = new StringBuilder("ballast:///");
      for (int i = 0; i < 6; i++) {
        backends.add(FramedServer.start(FramedServer.echo()));
        endpoints.append(i == 0 ? "" : ",").append("127.0.0.1:").append(backends.get(i).port())
            .append(";zone=z").append(i % 3);
        target.append(i == 0 ? "" : ",").append("127.0.0.1:").append(grpc.port(i))
            .append(";zone=z").append(i % 3);
      }
      @SuppressWarnings("unchecked")
      Map<String, ?> serviceConfig = (Map<String, ?>) JsonParser.parse(
          "{\"loadBalancingConfig\": [{\"p2c_peak_ewma\": {}}]}");
      channel = NettyChannelBuilder.forTarget(target.toString())
          .defaultServiceConfig(serviceConfig).usePlaintext().build();
      for (int i = 0; i < 60; i++) {
        GrpcServers.call(channel);
      }
      String authority = channel.authority();
      new ApplicationContextRunner()
          .withConfiguration(AutoConfigurations.of(BallastAutoConfiguration.class,
              BallastNettyAutoConfiguration.class))
          .withBean(PrometheusMeterRegistry.class, () -> prometheus)
          .withPropertyValues("ballast.clients.orders.endpoints=" + endpoints)
          .run(ctx -> {
            BallastClient<byte[], byte[]> orders = ctx.getBean(BallastClients.class)
                .framed("orders");
            for (int i = 0; i < 60; i++) {
              orders.call(new byte[] {(byte) i}).get(10, TimeUnit.SECONDS);
            }
            String scrape = prometheus.scrape();
            List<String> lines = scrape.lines().toList();
            // kept for a reader of the build: what a scrape of the defaults looks like
            java.nio.file.Files.writeString(java.nio.file.Path.of("target",
                "prometheus-scrape.txt"), scrape);
            for (String line : lines) {
              Matcher m = LABEL.matcher(line);
              while (m.find()) {
                assertThat(m.group(2)).as("tag %s of %s", m.group(1), line)
                    .hasSizeLessThanOrEqualTo(100);
              }
            }
            assertThat(scrape).contains("policy=\"p2c_peak_ewma\"")
                .contains("target=\"" + authority + "\"")
                .contains("client=\"orders\"");
            assertThat(lines.size()).as("a third of 678").isLessThanOrEqualTo(678 / 3);
          });
    } finally {
      if (channel != null) {
        GrpcServers.shutdown(channel);
      }
      backends.forEach(FramedServer::close);
      Metrics.removeRegistry(prometheus);
    }
  }
}
