package dev.ballast.discovery.etcd;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.core.Endpoint;
import dev.ballast.core.source.EndpointFeed;
import dev.ballast.core.source.EndpointSourceProvider;
import dev.ballast.core.source.Registration;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.Txn;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.PutOption;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The source and the registrar against a real etcd server started by the test. */
class EtcdSourceTest {

  private static EtcdServer server;
  private static Client client;

  @BeforeAll
  static void startServer() throws Exception {
    server = EtcdServer.start();
    client = Client.builder().endpoints(server.clientUrl()).build();
  }

  @AfterAll
  static void stopServer() throws Exception {
    client.close();
    server.close();
  }

  static ByteSequence b(String s) {
    return ByteSequence.from(s, StandardCharsets.UTF_8);
  }

  @Test
  void followsRegistrationsUpdatesDeregistrationsAndSkipsAMalformedKey() throws Exception {
    try (EtcdRegistrar registrar = EtcdRegistrar.of(client, "/s1/")) {
      Registration a = registrar.register("orders", Endpoint.parse("127.0.0.1:9001;zone=a"));
      registrar.register("orders", Endpoint.parse("127.0.0.1:9002;weight=2"));
      client.getKVClient().put(b("/s1/orders/garbage"), b("not an endpoint")).get();
      List<List<Endpoint>> seen = new CopyOnWriteArrayList<>();
      try (EndpointFeed feed = EndpointFeed.builder(EtcdSource.of(client, "/s1/orders"))
          .window(Duration.ZERO).start(seen::add)) {
        await(() -> feed.endpointCount() == 2);
        assertThat(texts(last(seen))).containsExactlyInAnyOrder(
            "127.0.0.1:9001;zone=a", "127.0.0.1:9002;weight=2");
        assertThat(feed.entriesRejected()).isEqualTo(1);

        a.update(a.endpoint().withWeight(5));
        await(() -> texts(last(seen)).contains("127.0.0.1:9001;weight=5;zone=a"));
        a.close();
        await(() -> feed.endpointCount() == 1);
      }
    }
  }

  @Test
  void aTransactionIsOnePush() throws Exception {
    List<List<Endpoint>> seen = new CopyOnWriteArrayList<>();
    try (EndpointFeed feed = EndpointFeed.builder(EtcdSource.of(client, "/s2/orders/"))
        .window(Duration.ZERO).start(seen::add)) {
      await(feed::isUp);
      Txn txn = client.getKVClient().txn();
      txn.Then(Op.put(b("/s2/orders/a"), b("127.0.0.1:9001"), PutOption.DEFAULT),
          Op.put(b("/s2/orders/b"), b("127.0.0.1:9002"), PutOption.DEFAULT),
          Op.put(b("/s2/orders/c"), b("127.0.0.1:9003"), PutOption.DEFAULT)).commit().get();
      await(() -> feed.endpointCount() == 3);
      assertThat(feed.updatesApplied()).isEqualTo(1); // three puts, one transaction, one update
    }
  }

  @Test
  void theSchemeOpensASourceThatOwnsItsClient() throws Exception {
    client.getKVClient().put(b("/s3/orders/x"), b("127.0.0.1:9001;weight=7")).get();
    List<List<Endpoint>> seen = new CopyOnWriteArrayList<>();
    try (EndpointFeed feed = EndpointFeed.builder(EndpointSourceProvider.open(
        "etcd://" + server.hostPort() + "/s3/orders")).start(seen::add)) {
      await(() -> feed.endpointCount() == 1);
      assertThat(texts(last(seen))).containsExactly("127.0.0.1:9001;weight=7");
      assertThat(feed.name()).isEqualTo("etcd:/s3/orders/");
    }
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
