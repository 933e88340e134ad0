package dev.ballast.examples;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import dev.ballast.core.roundrobin.Vnswrr;
import dev.ballast.netty.BallastClient;
import dev.ballast.netty.framed.FramedServer;
import dev.ballast.netty.http.HttpRequest;
import dev.ballast.netty.http.HttpResponse;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The README's examples run against real servers on 127.0.0.1. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ExamplesTest {

  private final List<AutoCloseable> opened = new ArrayList<>();

  @AfterEach
  void close() throws Exception {
    for (int i = opened.size() - 1; i >= 0; i--) {
      opened.get(i).close();
    }
  }

  @Test
  void coreBalancerPickedByHandSplitsByWeight() throws Exception {
    Map<String, Integer> answered = new HashMap<>();
    String endpoints = http("a") + ";weight=1," + http("b") + ";weight=2," + http("c") + ";weight=3";
    CoreExample example = new CoreExample(new Vnswrr<URI>(), endpoints);
    for (int i = 0; i < 60; i++) {
      answered.merge(example.get("/orders/" + i), 1, Integer::sum);
    }
    assertThat(answered).containsExactlyInAnyOrderEntriesOf(Map.of("a", 10, "b", 20, "c", 30));
  }

  @Test
  void framedClientPrefersTheFastBackend() throws Exception {
    long[] answered = FramedExample.run(100);
    // Hedges may add requests; P2C peak EWMA sends most calls to the backend 20 ms faster.
    assertThat(answered[0] + answered[1]).isGreaterThanOrEqualTo(100);
    assertThat(answered[0]).as("fast backend's share of %s", List.of(answered[0], answered[1]))
        .isGreaterThan(answered[1]);
  }

  @Test
  void framedServersReportingLoadAnswerTheClientsThatWeighThem() throws Exception {
    FramedServer a = open(FramedLoadReportsExample.server(FramedServer.echo()));
    FramedServer b = open(FramedLoadReportsExample.server(FramedServer.echo()));
    for (BallastClient<byte[], byte[]> client : List.of(
        FramedLoadReportsExample.client(List.of(a.endpoint(), b.endpoint())),
        FramedLoadReportsExample.clientInCode(List.of(a.endpoint(), b.endpoint())))) {
      try (client) {
        for (int i = 0; i < 20; i++) {
          assertThat(client.call(new byte[] {(byte) i}).get(20, TimeUnit.SECONDS))
              .containsExactly((byte) i);
        }
      }
    }
    assertThat(a.requests()).isEqualTo(20); // round robin until weights are in force
    assertThat(b.requests()).isEqualTo(20);
  }

  @Test
  void httpClientSplitsByWeightUnderVnswrr() throws Exception {
    Map<String, Integer> answered = new HashMap<>();
    try (BallastClient<HttpRequest, HttpResponse> client =
        HttpExample.client(http("a") + ";weight=1," + http("b") + ";weight=2")) {
      for (int i = 0; i < 30; i++) {
        HttpResponse response = client.call(HttpRequest.get("/orders/" + i)).get(20, TimeUnit.SECONDS);
        assertThat(response.status()).isEqualTo(200);
        answered.merge(response.bodyText(), 1, Integer::sum);
      }
    }
    assertThat(answered).containsExactlyInAnyOrderEntriesOf(Map.of("a", 10, "b", 20));
  }

  @Test
  void subsetsRouteByLabels() throws Exception {
    assertThat(SubsetsExample.pickCanaryInZoneA())
        .matches("10\\.0\\.0\\.[12]:8080 \\(removed: 10\\.0\\.0\\.3:8080\\)");

    FramedServer a = framed("a");
    FramedServer b = framed("b");
    byte[][] replies = SubsetsExample.callByZone(
        "127.0.0.1:" + a.port() + ";zone=a,127.0.0.1:" + b.port() + ";zone=b", new byte[0]);
    assertThat(new String(replies[0], StandardCharsets.UTF_8)).isEqualTo("b");
    assertThat(new String(replies[1], StandardCharsets.UTF_8)).isEqualTo("a");
  }

  @Test
  void zooKeeperClientFollowsAnnouncedServers() throws Exception {
    TestingServer zooKeeper = open(new TestingServer(true));
    FramedServer a = framed("a");
    FramedServer b = framed("b");
    open(ZooKeeperExample.announce(zooKeeper.getConnectString(), "127.0.0.1:" + a.port()));
    open(ZooKeeperExample.announce(zooKeeper.getConnectString(), "127.0.0.1:" + b.port()));
    BallastClient<byte[], byte[]> client = open(ZooKeeperExample.client(zooKeeper.getConnectString()));

    assertThat(client.endpointsWhen(es -> es.size() >= 2).get(30, TimeUnit.SECONDS))
        .extracting(e -> e.weight()).containsOnly(1);
    // Both announced servers answer. A server not yet measured gets its first call once its
    // default estimate is stale (100 ms) if the other answers faster: calls go on, bounded,
    // until both have answered.
    Map<String, Integer> answered = new HashMap<>();
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    for (int i = 0; i < 100 || answered.size() < 2 && System.nanoTime() < until; i++) {
      answered.merge(new String(client.call(new byte[0]).get(20, TimeUnit.SECONDS),
          StandardCharsets.UTF_8), 1, Integer::sum);
    }
    assertThat(answered.keySet()).containsExactlyInAnyOrder("a", "b");
  }

  @Test
  void keyedCallsReachTheSameServerEveryTime() throws Exception {
    assertThat(KeysExample.serverOf("user:42")).isEqualTo(KeysExample.serverOf("user:42"))
        .isIn("10.0.0.1:11211", "10.0.0.2:11211");

    String endpoints = "127.0.0.1:" + framed("a").port() + ";name=cache-a,127.0.0.1:"
        + framed("b").port() + ";name=cache-b";
    Map<String, Integer> servers = new HashMap<>();
    // Keys that differ from their first byte (FNV-1a, twemproxy's default hash, maps keys that
    // differ only in their last bytes to nearby points of the continuum).
    SplittableRandom random = new SplittableRandom(42);
    for (int i = 0; i < 20; i++) {
      String key = Long.toHexString(random.nextLong()) + ":user";
      String first = new String(KeysExample.get(endpoints, key, new byte[0]),
          StandardCharsets.UTF_8);
      String again = new String(KeysExample.get(endpoints, key, new byte[0]),
          StandardCharsets.UTF_8);
      assertThat(again).as("server of %s", key).isEqualTo(first);
      servers.merge(first, 1, Integer::sum);
    }
    assertThat(servers.keySet()).containsExactlyInAnyOrder("a", "b");
  }

  /** A JDK HTTP server answering every request with its name; returns its host:port. */
  private String http(String name) throws Exception {
    HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    byte[] body = name.getBytes(StandardCharsets.UTF_8);
    server.createContext("/", exchange -> {
      exchange.sendResponseHeaders(200, body.length);
      exchange.getResponseBody().write(body);
      exchange.close();
    });
    server.start();
    opened.add(() -> server.stop(0));
    return "127.0.0.1:" + server.getAddress().getPort();
  }

  private FramedServer framed(String name) {
    byte[] reply = name.getBytes(StandardCharsets.UTF_8);
    return open(FramedServer.start(request -> CompletableFuture.completedFuture(reply)));
  }

  private <T extends AutoCloseable> T open(T closeable) {
    opened.add(closeable);
    return closeable;
  }
}
