package dev.ballast.bench.live;

import dev.ballast.core.Algorithm;
import dev.ballast.core.Endpoint;
import dev.ballast.netty.BallastClient;
import dev.ballast.netty.ClientOptions;
import dev.ballast.netty.framed.FramedServer;
import dev.ballast.netty.outlier.OutlierDetection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * lb-netty's framed protocol: {@link FramedServer}s that answer each request once its {@link
 * CapacityServer} work is done and report their load to clients that ask ({@code
 * FramedServer.Builder.reportLoad}: the work's utilization of the last second, and the answers
 * per second the server counts itself); the client is {@code BallastClient.framed()}, its policy
 * and blackout period given by name as a user's configuration would.
 */
final class FramedTransport implements LiveCapacity.Transport {

  private static final byte[] EMPTY = new byte[0];

  @Override
  public LiveCapacity.Cluster open(String policy, List<CapacityServer> work) {
    List<FramedServer> servers = new ArrayList<>();
    BallastClient<byte[], byte[]> client;
    try {
      List<Endpoint> endpoints = new ArrayList<>();
      for (CapacityServer w : work) {
        FramedServer s = FramedServer.builder()
            .handler(req -> {
              CompletableFuture<byte[]> answer = new CompletableFuture<>();
              w.submit(() -> answer.complete(EMPTY));
              return answer;
            })
            .reportLoad(w::utilization, Duration.ofSeconds(1))
            .start();
        servers.add(s);
        endpoints.add(s.endpoint());
      }
      Map<String, Object> options = new LinkedHashMap<>();
      options.put("balancer", policy);
      if (Algorithm.fromName(policy).readsReports()) {
        options.put("blackoutPeriod", LiveCapacity.BLACKOUT.toMillis() + "ms");
      }
      BallastClient.Builder<byte[], byte[]> b = BallastClient.framed()
          .endpoints(endpoints)
          .timeout(LiveCapacity.DEADLINE)
          .maxAttempts(1)
          // calls at the deadline are counted in the table, not logged one by one
          .slowRequestThreshold(Duration.ofMinutes(1))
          .outlierDetection(OutlierDetection.disabled());
      ClientOptions.CLIENT.apply(b, options);
      client = b.build();
    } catch (RuntimeException | Error e) {
      servers.forEach(FramedServer::close);
      throw e;
    }
    return new LiveCapacity.Cluster() {
      @Override
      public CompletableFuture<?> call() {
        return client.call(EMPTY);
      }

      @Override
      public void close() {
        client.close();
        servers.forEach(FramedServer::close);
      }
    };
  }
}
