package dev.ballast.discovery.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.core.Endpoint;
import dev.ballast.core.Health;
import dev.ballast.core.source.EndpointFeed;
import dev.ballast.core.source.Registration;
import dev.ballast.core.testing.Pushes;
import dev.ballast.core.source.EndpointSource;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingCluster;
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
    return client(server.getConnectString());
  }

  private static CuratorFramework client(String connectString) {
    CuratorFramework c = CuratorFrameworkFactory.newClient(connectString, 10_000,
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
      Pushes pushes = new Pushes();
      try (EndpointFeed feed = EndpointFeed.builder(ZooKeeperSource.of(admin, "/s1/orders"))
          .window(Duration.ZERO).start(pushes)) {
        assertThat(texts(pushes.await(es -> es.size() == 3))).containsExactlyInAnyOrder(
            "127.0.0.1:9001;zone=a", "127.0.0.1:9002;weight=2", "127.0.0.1:9003;weight=4");
        assertThat(feed.entriesRejected()).isEqualTo(1); // counted as the same read was parsed
        assertThat(feed.isUp()).isTrue();

        a.update(a.endpoint().withWeight(5));
        pushes.await(es -> texts(es).contains("127.0.0.1:9001;weight=5;zone=a"));
        a.close();
        assertThat(texts(pushes.await(es -> es.size() == 2)))
            .doesNotContain("127.0.0.1:9001;weight=5;zone=a");
      }
    }
  }

  @Test
  void afterSessionExpiryResyncsAndChangesMadeMeanwhileArrive() throws Exception {
    try (CuratorFramework admin = client();
        ZooKeeperRegistrar registrar = ZooKeeperRegistrar.of(admin, "/s2");
        CuratorFramework watching = client()) {
      registrar.register("orders", Endpoint.parse("127.0.0.1:9001"));
      Pushes pushes = new Pushes();
      try (EndpointFeed feed = EndpointFeed.builder(ZooKeeperSource.of(watching, "/s2/orders"))
          .window(Duration.ZERO).start(pushes)) {
        pushes.await(es -> es.size() == 1);
        watching.getZookeeperClient().getZooKeeper().getTestable().injectSessionExpiration();
        registrar.register("orders", Endpoint.parse("127.0.0.1:9002"));
        assertThat(texts(pushes.await(es -> es.size() == 2)))
            .containsExactlyInAnyOrder("127.0.0.1:9001", "127.0.0.1:9002");
        assertThat(feed.isUp()).isTrue();
      }
    }
  }

  @Test
  void theSchemeOpensASourceThatOwnsItsClient() throws Exception {
    try (CuratorFramework admin = client();
        ZooKeeperRegistrar registrar = ZooKeeperRegistrar.of(admin, "/s3")) {
      registrar.register("orders", Endpoint.parse("127.0.0.1:9001;weight=7"));
      Pushes pushes = new Pushes();
      try (EndpointFeed feed = EndpointFeed.builder(dev.ballast.core.source.EndpointSourceProvider
          .open("zookeeper://" + server.getConnectString() + "/s3/orders")).start(pushes)) {
        assertThat(texts(pushes.await(es -> es.size() == 1)))
            .containsExactly("127.0.0.1:9001;weight=7");
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
      Pushes pushes = new Pushes();
      try (EndpointFeed feed = EndpointFeed.builder(ZooKeeperSource.of(admin, "/s4/orders"))
          .window(Duration.ZERO).start(pushes)) {
        List<Endpoint> first = pushes.await(es -> es.size() == 2);
        assertThat(health(first, 9001)).isEqualTo(Health.HEALTHY);
        assertThat(health(first, 9002)).isEqualTo(Health.UNHEALTHY);
        // the server marks itself down through its registration; the other one comes up
        a.update(a.endpoint().withLabels(java.util.Map.of("zone", "a", "health", "unhealthy")));
        admin.setData().forPath("/s4/orders/spring", String.format(json, "UP")
            .getBytes(StandardCharsets.UTF_8));
        pushes.await(es -> health(es, 9001) == Health.UNHEALTHY
            && health(es, 9002) == Health.HEALTHY);
        assertThat(feed.entriesRejected()).isZero();
      }
    }
  }

  @Test
  void afterTheRegistryIsWipedTheReconnectionPublishesOneWholeListingNotEachDeletion()
      throws Exception {
    File dir = Files.createTempDirectory("ballast-zk-wipe").toFile();
    // a cluster of one, for its kill() (the process dies) and restart() on the same port
    try (TestingCluster zk = new TestingCluster(
        new InstanceSpec(dir, -1, -1, -1, true, 1, 100, -1))) {
      zk.start();
      try (CuratorFramework admin = client(zk.getConnectString());
          CuratorFramework watching = client(zk.getConnectString())) {
        for (int port = 9001; port <= 9003; port++) {
          admin.create().creatingParentsIfNeeded().forPath("/w/orders/" + port,
              ("127.0.0.1:" + port).getBytes(StandardCharsets.UTF_8));
        }
        Recording calls = new Recording();
        try (ZooKeeperSource source = ZooKeeperSource.of(watching, "/w/orders")) {
          source.start(calls);
          calls.await("entries {9001=127.0.0.1:9001, 9002=127.0.0.1:9002, 9003=127.0.0.1:9003}");

          zk.getServers().get(0).kill();
          try (Stream<Path> files = Files.walk(dir.toPath())) {
            files.sorted(Comparator.reverseOrder()).filter(p -> !p.equals(dir.toPath()))
                .forEach(p -> p.toFile().delete());
          }
          zk.getServers().get(0).restart();
          calls.await("entries {}");
          // a registration after the reconnection arrives as a change
          admin.create().creatingParentsIfNeeded().forPath("/w/orders/9004",
              "127.0.0.1:9004".getBytes(StandardCharsets.UTF_8));
          calls.await("changes {9004=127.0.0.1:9004} []");
          // one whole (empty) listing, not one partial listing per deleted node
          assertThat(calls.sinceLastFailure())
              .containsExactly("entries {}", "changes {9004=127.0.0.1:9004} []");
        }
      }
    }
  }

  /** The source's calls to its listener, in order, as text. */
  private static final class Recording implements EndpointSource.Listener {
    private final List<String> calls = new ArrayList<>();

    @Override
    public synchronized void onEntries(Map<String, String> entries) {
      calls.add("entries " + new TreeMap<>(entries));
      notifyAll();
    }

    @Override
    public synchronized void onChanges(Map<String, String> upserts, Collection<String> removed) {
      calls.add("changes " + new TreeMap<>(upserts) + " " + new TreeSet<>(removed));
      notifyAll();
    }

    @Override
    public synchronized void onFailure(Throwable cause) {
      calls.add("failure");
      notifyAll();
    }

    synchronized void await(String call) throws InterruptedException {
      long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
      while (!calls.contains(call)) {
        long left = TimeUnit.NANOSECONDS.toMillis(end - System.nanoTime());
        assertThat(left).as("awaiting '" + call + "'; calls: " + calls).isPositive();
        wait(left);
      }
    }

    synchronized List<String> sinceLastFailure() {
      return List.copyOf(calls.subList(calls.lastIndexOf("failure") + 1, calls.size()));
    }
  }

  private static Health health(List<Endpoint> es, int port) {
    return es.stream().filter(e -> e.port() == port).findFirst().orElseThrow().health();
  }

  static List<String> texts(List<Endpoint> es) {
    return es.stream().map(Endpoint::toString).toList();
  }
}
