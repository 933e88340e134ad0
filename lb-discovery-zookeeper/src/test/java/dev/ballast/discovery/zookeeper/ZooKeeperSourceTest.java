package dev.ballast.discovery.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.core.Endpoint;
import dev.ballast.core.Health;
import dev.ballast.core.source.EndpointFeed;
import dev.ballast.core.source.Registration;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BooleanSupplier;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.CreateMode;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The source and the registrar against a real ZooKeeper server (Curator's TestingServer). */
class ZooKeeperSourceTest {

  private static TestingServer server;

  @BeforeAll
  static void startServer() throws Exception {
    server = new TestingServer(true);
  }

  @AfterAll
  static void stopServer() throws Exception {
    server.close();
  }

  private static CuratorFramework client() {
    CuratorFramework c = CuratorFrameworkFactory.newClient(server.getConnectString(), 10_000,
        5_000, new RetryOneTime(100));
    c.start();
    return c;
  }

  @Test
  void followsRegistrationsUpdatesDeregistrationsAndSkipsAMalformedNode() throws Exception {
    try (CuratorFramework admin = client();
        ZooKeeperRegistrar registrar = ZooKeeperRegistrar.of(admin, "/s1")) {
      Registration a = registrar.register("orders", Endpoint.parse("127.0.0.1:9001;zone=a"));
      registrar.register("orders", Endpoint.parse("127.0.0.1:9002;weight=2"));
      admin.create().forPath("/s1/orders/x-discovery", ("{\"address\":\"127.0.0.1\","
          + "\"port\":9003,\"payload\":{\"weight\":4}}").getBytes(StandardCharsets.UTF_8));
      admin.create().withMode(CreateMode.EPHEMERAL).forPath("/s1/orders/garbage",
          "not an endpoint".getBytes(StandardCharsets.UTF_8));
      List<List<Endpoint>> seen = new CopyOnWriteArrayList<>();
      try (EndpointFeed feed = EndpointFeed.builder(ZooKeeperSource.of(admin, "/s1/orders"))
          .window(Duration.ZERO).start(seen::add)) {
        await(() -> feed.endpointCount() == 3);
        assertThat(texts(last(seen))).containsExactlyInAnyOrder(
            "127.0.0.1:9001;zone=a", "127.0.0.1:9002;weight=2", "127.0.0.1:9003;weight=4");
        assertThat(feed.entriesRejected()).isEqualTo(1);
        assertThat(feed.isUp()).isTrue();

        a.update(a.endpoint().withWeight(5));
        await(() -> texts(last(seen)).contains("127.0.0.1:9001;weight=5;zone=a"));
        a.close();
        await(() -> feed.endpointCount() == 2);
        assertThat(texts(last(seen))).doesNotContain("127.0.0.1:9001;weight=5;zone=a");
      }
    }
  }

  @Test
  void afterSessionExpiryResyncsAndChangesMadeMeanwhileArrive() throws Exception {
    try (CuratorFramework admin = client();
        ZooKeeperRegistrar registrar = ZooKeeperRegistrar.of(admin, "/s2");
        CuratorFramework watching = client()) {
      registrar.register("orders", Endpoint.parse("127.0.0.1:9001"));
      List<List<Endpoint>> seen = new CopyOnWriteArrayList<>();
      try (EndpointFeed feed = EndpointFeed.builder(ZooKeeperSource.of(watching, "/s2/orders"))
          .window(Duration.ZERO).start(seen::add)) {
        await(() -> feed.endpointCount() == 1);
        watching.getZookeeperClient().getZooKeeper().getTestable().injectSessionExpiration();
        registrar.register("orders", Endpoint.parse("127.0.0.1:9002"));
        await(() -> feed.endpointCount() == 2);
        assertThat(texts(last(seen))).containsExactlyInAnyOrder("127.0.0.1:9001", "127.0.0.1:9002");
        assertThat(feed.isUp()).isTrue();
      }
    }
  }

  @Test
  void theSchemeOpensASourceThatOwnsItsClient() throws Exception {
    try (CuratorFramework admin = client();
        ZooKeeperRegistrar registrar = ZooKeeperRegistrar.of(admin, "/s3")) {
      registrar.register("orders", Endpoint.parse("127.0.0.1:9001;weight=7"));
      List<List<Endpoint>> seen = new CopyOnWriteArrayList<>();
      try (EndpointFeed feed = EndpointFeed.builder(dev.ballast.core.source.EndpointSourceProvider
          .open("zookeeper://" + server.getConnectString() + "/s3/orders")).start(seen::add)) {
        await(() -> feed.endpointCount() == 1);
        assertThat(texts(last(seen))).containsExactly("127.0.0.1:9001;weight=7");
        assertThat(feed.name()).isEqualTo("zookeeper:/s3/orders");
      }
    }
  }

  @Test
  void theRegistrysStatusIsTheEndpointsHealth() throws Exception {
    try (CuratorFramework admin = client();
        ZooKeeperRegistrar registrar = ZooKeeperRegistrar.of(admin, "/s4")) {
      Registration a = registrar.register("orders", Endpoint.parse("127.0.0.1:9001;zone=a"));
      String json = "{\"address\":\"127.0.0.1\",\"port\":9002,\"payload\":{\"metadata\":"
          + "{\"instance_status\":\"%s\"}}}";
      admin.create().forPath("/s4/orders/spring", String.format(json, "OUT_OF_SERVICE")
          .getBytes(StandardCharsets.UTF_8));
      List<List<Endpoint>> seen = new CopyOnWriteArrayList<>();
      try (EndpointFeed feed = EndpointFeed.builder(ZooKeeperSource.of(admin, "/s4/orders"))
          .window(Duration.ZERO).start(seen::add)) {
        await(() -> feed.endpointCount() == 2);
        assertThat(health(last(seen), 9001)).isEqualTo(Health.HEALTHY);
        assertThat(health(last(seen), 9002)).isEqualTo(Health.UNHEALTHY);
        // the server marks itself down through its registration; the other one comes up
        a.update(a.endpoint().withLabels(java.util.Map.of("zone", "a", "health", "unhealthy")));
        admin.setData().forPath("/s4/orders/spring", String.format(json, "UP")
            .getBytes(StandardCharsets.UTF_8));
        await(() -> health(last(seen), 9001) == Health.UNHEALTHY
            && health(last(seen), 9002) == Health.HEALTHY);
        assertThat(feed.entriesRejected()).isZero();
      }
    }
  }

  private static Health health(List<Endpoint> es, int port) {
    return es.stream().filter(e -> e.port() == port).findFirst().orElseThrow().health();
  }

  static List<Endpoint> last(List<List<Endpoint>> seen) {
    return seen.isEmpty() ? List.of() : seen.get(seen.size() - 1);
  }

  static List<String> texts(List<Endpoint> es) {
    return es.stream().map(Endpoint::toString).toList();
  }

  /** Polls every 10 ms for up to 10 s: the server is real, so changes take real time. */
  static void await(BooleanSupplier condition) throws InterruptedException {
    long end = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > end) {
        throw new AssertionError("condition not met within 10 s");
      }
      Thread.sleep(10);
    }
  }
}
