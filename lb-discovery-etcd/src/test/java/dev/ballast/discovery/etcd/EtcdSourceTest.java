package dev.ballast.discovery.etcd;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.core.Endpoint;
import dev.ballast.core.Health;
import dev.ballast.core.source.EndpointFeed;
import dev.ballast.core.source.EndpointSource;
import dev.ballast.core.source.EndpointSourceProvider;
import dev.ballast.core.source.Registration;
import dev.ballast.core.testing.Pushes;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.Txn;
import io.etcd.jetcd.common.exception.CompactedException;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.PutOption;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
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
      Pushes pushes = new Pushes();
      try (EndpointFeed feed = EndpointFeed.builder(EtcdSource.of(client, "/s1/orders"))
          .window(Duration.ZERO).start(pushes)) {
        assertThat(texts(pushes.await(es -> es.size() == 2))).containsExactlyInAnyOrder(
            "127.0.0.1:9001;zone=a", "127.0.0.1:9002;weight=2");
        assertThat(feed.entriesRejected()).isEqualTo(1); // counted as the same read was parsed

        a.update(a.endpoint().withWeight(5));
        pushes.await(es -> texts(es).contains("127.0.0.1:9001;weight=5;zone=a"));
        a.close();
        assertThat(texts(pushes.await(es -> es.size() == 1)))
            .containsExactly("127.0.0.1:9002;weight=2");
      }
    }
  }

  @Test
  void theValuesHealthIsTheEndpointsHealth() throws Exception {
    try (EtcdRegistrar registrar = EtcdRegistrar.of(client, "/s5/")) {
      Registration a = registrar.register("orders", Endpoint.parse("127.0.0.1:9001;zone=a"));
      client.getKVClient().put(b("/s5/orders/b"), b("127.0.0.1:9002;health=degraded\n")).get();
      Pushes pushes = new Pushes();
      try (EndpointFeed feed = EndpointFeed.builder(EtcdSource.of(client, "/s5/orders"))
          .window(Duration.ZERO).start(pushes)) {
        List<Endpoint> first = pushes.await(es -> es.size() == 2);
        assertThat(health(first, 9001)).isEqualTo(Health.HEALTHY);
        assertThat(health(first, 9002)).isEqualTo(Health.DEGRADED);
        // the server marks itself down through its registration: same endpoint, now unhealthy
        a.update(a.endpoint().withLabels(Map.of("zone", "a", "health", "unhealthy")));
        pushes.await(es -> health(es, 9001) == Health.UNHEALTHY);
        a.update(a.endpoint().withLabels(Map.of("zone", "a")));
        pushes.await(es -> health(es, 9001) == Health.HEALTHY);
      }
    }
  }

  private static Health health(List<Endpoint> es, int port) {
    return es.stream().filter(e -> e.port() == port).findFirst().orElseThrow().health();
  }

  @Test
  void aTransactionIsOnePush() throws Exception {
    // an entry before the start, so that the source's first read is a push to wait for
    client.getKVClient().put(b("/s2/orders/0"), b("127.0.0.1:9000")).get();
    Pushes pushes = new Pushes();
    try (EndpointFeed feed = EndpointFeed.builder(EtcdSource.of(client, "/s2/orders/"))
        .window(Duration.ZERO).start(pushes)) {
      pushes.await(es -> es.size() == 1);
      Txn txn = client.getKVClient().txn();
      txn.Then(Op.put(b("/s2/orders/a"), b("127.0.0.1:9001"), PutOption.DEFAULT),
          Op.put(b("/s2/orders/b"), b("127.0.0.1:9002"), PutOption.DEFAULT),
          Op.put(b("/s2/orders/c"), b("127.0.0.1:9003"), PutOption.DEFAULT)).commit().get();
      pushes.await(es -> es.size() == 4);
      assertThat(pushes.count()).isEqualTo(2); // the read, then three puts in one transaction
    }
  }

  @Test
  void theSchemeOpensASourceThatOwnsItsClient() throws Exception {
    client.getKVClient().put(b("/s3/orders/x"), b("127.0.0.1:9001;weight=7")).get();
    Pushes pushes = new Pushes();
    try (EndpointFeed feed = EndpointFeed.builder(EndpointSourceProvider.open(
        "etcd://" + server.hostPort() + "/s3/orders")).start(pushes)) {
      assertThat(texts(pushes.await(es -> es.size() == 1)))
          .containsExactly("127.0.0.1:9001;weight=7");
      assertThat(feed.name()).isEqualTo("etcd:/s3/orders/");
    }
  }

  @Test
  void aWatchFromACompactedRevisionReReadsAndMissesNothing() throws Exception {
    client.getKVClient().put(b("/s4/orders/a"), b("127.0.0.1:9001")).get();
    BlockingQueue<Object> heard = new LinkedBlockingQueue<>();
    AtomicBoolean compacted = new AtomicBoolean();
    try (Client other = Client.builder().endpoints(server.clientUrl()).build();
        EtcdSource source = EtcdSource.of(client, "/s4/orders")) {
      // Connected here, not first inside the callback: jetcd would then bind the new client to
      // the callback's own event loop, which the blocking calls below hold.
      other.getKVClient().get(b("/s4/orders/a")).get();
      source.start(new EndpointSource.Listener() {
        @Override
        public void onEntries(Map<String, String> entries) {
          heard.add(Map.copyOf(entries));
          if (compacted.compareAndSet(false, true)) {
            // Between the read and the watch from the revision after it: two changes, then the
            // history before the second compacted away, so the watch cannot start there.
            try {
              other.getKVClient().put(b("/s4/orders/b"), b("127.0.0.1:9002")).get();
              long revision = other.getKVClient().put(b("/s4/orders/c"), b("127.0.0.1:9003"))
                  .get().getHeader().getRevision();
              other.getKVClient().compact(revision).get();
            } catch (Exception e) {
              heard.add(new AssertionError("could not change and compact", e));
            }
          }
        }

        @Override
        public void onChanges(Map<String, String> upserts, Collection<String> removedKeys) {
          heard.add(upserts);
        }

        @Override
        public void onFailure(Throwable cause) {
          heard.add(cause);
        }
      });
      assertThat(next(heard)).isEqualTo(Map.of("a", "127.0.0.1:9001"));
      assertThat(next(heard)).isInstanceOf(CompactedException.class);
      // the changes made meanwhile arrive in the full read that follows
      assertThat(next(heard)).isEqualTo(
          Map.of("a", "127.0.0.1:9001", "b", "127.0.0.1:9002", "c", "127.0.0.1:9003"));
    }
  }

  private static Object next(BlockingQueue<Object> heard) throws InterruptedException {
    Object o = heard.poll(10, TimeUnit.SECONDS);
    assertThat(o).as("the source's next report within 10 s").isNotNull();
    return o;
  }

  static List<String> texts(List<Endpoint> es) {
    return es.stream().map(Endpoint::toString).toList();
  }
}
