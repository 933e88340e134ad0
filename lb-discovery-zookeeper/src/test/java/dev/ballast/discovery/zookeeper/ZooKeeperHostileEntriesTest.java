package dev.ballast.discovery.zookeeper;

import static dev.ballast.discovery.zookeeper.ZooKeeperSourceTest.texts;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.core.Endpoint;
import dev.ballast.core.source.EndpointFeed;
import dev.ballast.core.testing.LogRecorder;
import dev.ballast.core.testing.Pushes;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Hostile registry entries against a real ZooKeeper (Curator's TestingServer): each is
 * rejected, counted and logged on its own, and the other endpoints stay.
 */
class ZooKeeperHostileEntriesTest {

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

  /** The feed's log lines while {@code body} runs, kept off the console. */
  private static List<String> logged(ThrowingRunnable body) throws Exception {
    try (LogRecorder log = LogRecorder.on(dev.ballast.core.log.StateChangeLog.LOGGER)) {
      body.run();
      return log.lines();
    }
  }

  interface ThrowingRunnable {
    void run() throws Exception;
  }

  private static void create(CuratorFramework c, String path, String data) throws Exception {
    c.create().creatingParentsIfNeeded().forPath(path, data.getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void aDeeplyNestedEntryIsRejectedAndTheOtherEndpointsStay() throws Exception {
    Pushes pushes = new Pushes();
    List<String> lines = logged(() -> {
      try (CuratorFramework admin = client()) {
        for (int i = 1; i <= 3; i++) {
          create(admin, "/h1/orders/good" + i, "127.0.0.1:900" + i);
        }
        create(admin, "/h1/orders/deep", "{\"address\":" + "[".repeat(5000));
        try (EndpointFeed feed = EndpointFeed.builder(ZooKeeperSource.of(admin, "/h1/orders"))
            .window(Duration.ZERO).start(pushes)) {
          pushes.await(es -> es.size() == 3);
          assertThat(feed.entriesRejected()).isEqualTo(1); // counted as the same read was parsed
          create(admin, "/h1/orders/good4", "127.0.0.1:9004");
          assertThat(texts(pushes.await(es -> es.size() == 4))).containsExactlyInAnyOrder(
              "127.0.0.1:9001", "127.0.0.1:9002", "127.0.0.1:9003", "127.0.0.1:9004");
          assertThat(feed.entriesRejected()).isEqualTo(1);
          assertThat(feed.isUp()).isTrue();
        }
      }
    });
    assertThat(lines).anySatisfy(l -> assertThat(l).contains("entry deep skipped")
        .contains("nested more than " + ServiceInstanceJson.MAX_DEPTH + " deep"));
  }

  @Test
  void anEntrySkippedForTheWeightTotalIsTakenOnceTheSetFitsWhateverTheOrderOfWrites()
      throws Exception {
    int max = Integer.MAX_VALUE;
    int half = (1 << 30) - 2; // two of them: 2^31-4
    List<String> lines = logged(() -> {
      try (CuratorFramework admin = client()) {
        create(admin, "/h4/orders/a", "127.0.0.1:9001;weight=" + (max - 1));
        create(admin, "/h4/orders/b", "127.0.0.1:9002;weight=" + (max - 1));
        Pushes pushes = new Pushes();
        try (EndpointFeed feed = EndpointFeed.builder(ZooKeeperSource.of(admin, "/h4/orders"))
            .window(Duration.ZERO).start(pushes)) {
          List<?> one = pushes.await(es -> es.size() == 1);
          String kept = one.toString().contains("9001") ? "a" : "b";
          String skipped = kept.equals("a") ? "b" : "a";
          // the skipped entry is written first: it still does not fit, then the kept one shrinks
          admin.setData().forPath("/h4/orders/" + skipped, ("127.0.0.1:900"
              + (skipped.equals("a") ? 1 : 2) + ";weight=" + half).getBytes(
                  StandardCharsets.UTF_8));
          admin.setData().forPath("/h4/orders/" + kept, ("127.0.0.1:900"
              + (kept.equals("a") ? 1 : 2) + ";weight=" + half).getBytes(
                  StandardCharsets.UTF_8));
          assertThat(texts(pushes.await(es -> es.size() == 2))).containsExactlyInAnyOrder(
              "127.0.0.1:9001;weight=" + half, "127.0.0.1:9002;weight=" + half);
          awaitCount(feed, 2); // counted just after the sink took the set
        }
      }
    });
    assertThat(lines).anySatisfy(l -> assertThat(l)
        .contains("would take the total over " + Integer.MAX_VALUE));
  }

  @Test
  void anEmptyListingKeepsTheLastSetAndIsLoggedOnce() throws Exception {
    List<String> lines = logged(() -> {
      try (CuratorFramework admin = client()) {
        create(admin, "/h5/orders/a", "127.0.0.1:9001");
        create(admin, "/h5/orders/b", "127.0.0.1:9002");
        Pushes pushes = new Pushes();
        try (EndpointFeed feed = EndpointFeed.builder(ZooKeeperSource.of(admin, "/h5/orders"))
            .start(pushes)) {
          pushes.await(es -> es.size() == 2);
          admin.transaction().forOperations(admin.transactionOp().delete().forPath(
              "/h5/orders/a"), admin.transactionOp().delete().forPath("/h5/orders/b"));
          awaitKeeping(feed, true);
          create(admin, "/h5/orders/bad", "127.0.0.1:0"); // nothing usable: still empty
          admin.delete().forPath("/h5/orders/bad");
          create(admin, "/h5/orders/c", "127.0.0.1:9003");
          // (the two deletions may reach the source one at a time: [9002] is then pushed first)
          assertThat(texts(pushes.await(es -> texts(es).equals(List.of("127.0.0.1:9003")))))
              .containsExactly("127.0.0.1:9003");
          // the feed marks the set applied right after the sink took it
          awaitKeeping(feed, false);
        }
      }
    });
    assertThat(lines.stream().filter(l -> l.contains("lists no endpoint"))).hasSize(1);
  }

  private static void awaitCount(EndpointFeed feed, int count) {
    long end = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(10);
    while (feed.endpointCount() != count) {
      if (System.nanoTime() > end) {
        throw new AssertionError("expected " + count + " endpoints counted within 10 s: " + feed);
      }
      Thread.onSpinWait();
    }
  }

  private static void awaitKeeping(EndpointFeed feed, boolean keeping) {
    long end = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(10);
    while (feed.keepsLastSet() != keeping) {
      if (System.nanoTime() > end) {
        throw new AssertionError((keeping ? "the empty listing not heard" : "the listing after"
            + " the empty one not applied") + " within 10 s: " + feed);
      }
      Thread.onSpinWait();
    }
  }

  @Test
  void aHugeLabelIsRejectedAndTheOtherEndpointsStay() throws Exception {
    List<String> lines = logged(() -> {
      try (CuratorFramework admin = client()) {
        create(admin, "/h2/orders/good", "127.0.0.1:9001");
        create(admin, "/h2/orders/huge-text", "127.0.0.1:9002;zone=" + "x".repeat(900_000));
        create(admin, "/h2/orders/huge-json", "{\"address\":\"127.0.0.1\",\"port\":9003,"
            + "\"payload\":{\"zone\":\"" + "x".repeat(60_000) + "\"}}");
        Pushes pushes = new Pushes();
        try (EndpointFeed feed = EndpointFeed.builder(ZooKeeperSource.of(admin, "/h2/orders"))
            .window(Duration.ZERO).start(pushes)) {
          pushes.await(es -> es.size() == 1);
          assertThat(feed.entriesRejected()).isEqualTo(2); // counted as the same read was parsed
        }
      }
    });
    assertThat(lines).anySatisfy(l -> assertThat(l).contains("entry huge-text skipped")
        .contains("at most " + Endpoint.MAX_TEXT_CHARS).hasSizeLessThan(2000));
    assertThat(lines).anySatisfy(l -> assertThat(l).contains("entry huge-json skipped")
        .contains("label zone: a value of 60000 characters (expected: at most "
            + Endpoint.MAX_LABEL_VALUE_CHARS + ")").hasSizeLessThan(2000));
  }

  @Test
  void registeringWithZooKeeperDownNamesTheServersAndThatNoConnectionWasMade()
      throws Exception {
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort(); // closed again: nothing listens there
    }
    String servers = "127.0.0.1:" + port;
    try (CuratorFramework down = CuratorFrameworkFactory.newClient(servers, 10_000, 500,
            new RetryOneTime(100));
        // the create waits a little longer than the client's 500 ms connection timeout
        ZooKeeperRegistrar registrar = ZooKeeperRegistrar.of(down, "/services",
            Duration.ofMillis(700))) {
      assertThatThrownBy(() -> registrar.register("echo", Endpoint.parse("127.0.0.1:8080")))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("within 700 ms")
          .hasMessageContaining("no connection to ZooKeeper at " + servers + " was ever made");
    }
  }
}
