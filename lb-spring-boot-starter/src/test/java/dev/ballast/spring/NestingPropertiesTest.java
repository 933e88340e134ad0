package dev.ballast.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.netty.BallastClient;
import dev.ballast.netty.CallOptions;
import dev.ballast.netty.framed.FramedServer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * Properties nest composites in an lb-netty client (real backends on 127.0.0.1): label subsets
 * over zones over P2C peak EWMA, and zones over ring hash with the call's key passed down.
 */
class NestingPropertiesTest {

  // 0-3 v1, 4-7 v2; in each version two in zone a, two in zone b
  private final List<FramedServer> servers = new ArrayList<>();
  private final List<String> properties = new ArrayList<>();

  NestingPropertiesTest() {
    for (int i = 0; i < 8; i++) {
      FramedServer s = FramedServer.start(FramedServer.echo());
      servers.add(s);
      properties.add("ballast.clients.orders.endpoints[" + i + "]=127.0.0.1:" + s.port()
          + ";version=" + (i < 4 ? "v1" : "v2") + ";zone=" + ((i / 2) % 2 == 0 ? "a" : "b"));
    }
    properties.addAll(List.of("ballast.clients.orders.locality.local-zone=a",
        "ballast.clients.orders.locality.caller-zones.a=1",
        "ballast.clients.orders.locality.caller-zones.b=1",
        "ballast.clients.orders.locality.min-cluster-size=1"));
  }

  private ApplicationContextRunner runner(String... more) {
    List<String> all = new ArrayList<>(properties);
    all.addAll(List.of(more));
    return new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(BallastAutoConfiguration.class,
            BallastNettyAutoConfiguration.class))
        .withPropertyValues(all.toArray(new String[0]));
  }

  @AfterEach
  void stop() {
    servers.forEach(FramedServer::close);
  }

  private long[] answered() {
    return servers.stream().mapToLong(FramedServer::requests).toArray();
  }

  @Test
  void labelSubsetsOverZonesOverP2c() {
    runner("ballast.clients.orders.balancer=p2c-peak-ewma",
        "ballast.clients.orders.subset.selectors[0]=version").run(ctx -> {
          assertThat(ctx).hasNotFailed();
          BallastClient<byte[], byte[]> c = ctx.getBean(BallastClients.class).framed("orders");
          assertThat(c.balancerName()).isEqualTo("label_subset(locality(p2c_peak_ewma))");
          CallOptions v1 = CallOptions.DEFAULT.withLabels(Map.of("version", "v1"));
          for (int i = 0; i < 100; i++) {
            c.call(new byte[] {1}, v1).get(10, TimeUnit.SECONDS);
          }
          long[] n = answered();
          assertThat(n[0] + n[1]).isEqualTo(100); // v1 in zone a
        });
  }

  @Test
  void zonesOverRingHashWithTheKeyPassedDown() {
    runner("ballast.clients.orders.balancer=ring-hash").run(ctx -> {
      assertThat(ctx).hasNotFailed();
      BallastClient<byte[], byte[]> c = ctx.getBean(BallastClients.class).framed("orders");
      assertThat(c.balancerName()).isEqualTo("locality(ring_hash)");
      Map<String, Integer> serverOfKey = new TreeMap<>();
      for (int k = 0; k < 10; k++) {
        for (int i = 0; i < 5; i++) {
          long[] before = answered();
          c.call(new byte[] {1}, CallOptions.DEFAULT.withKey("user-" + k))
              .get(10, TimeUnit.SECONDS);
          long[] after = answered();
          int server = -1;
          for (int s = 0; s < after.length; s++) {
            server = after[s] > before[s] ? s : server;
          }
          Integer first = serverOfKey.putIfAbsent("user-" + k, server);
          assertThat(server).isEqualTo(first == null ? server : first);
        }
      }
      assertThat(serverOfKey.values()).allMatch(s -> s == 0 || s == 1 || s == 4 || s == 5);
    });
  }
}
