package dev.ballast.discovery;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.core.Algorithm;
import dev.ballast.core.Endpoint;
import dev.ballast.discovery.dns.DnsSource;
import dev.ballast.netty.BallastClient;
import dev.ballast.netty.framed.FramedServer;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.stub.ClientCalls;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A client on a DNS name whose answers change (a DNS server on 127.0.0.1 made with Netty's DNS
 * codec): it follows them within the re-resolution period, and at once after every endpoint
 * fails.
 */
class DnsFollowTest {

  private static final String SRV = "_framed._tcp.orders.test";

  private TestDnsServer dns;
  private final List<FramedServer> servers = new ArrayList<>();
  private final List<AtomicLong> calls = new ArrayList<>();

  @BeforeEach
  void start() throws Exception {
    dns = new TestDnsServer();
    dns.setA("local.orders.test", "127.0.0.1");
    for (int i = 0; i < 3; i++) {
      AtomicLong count = new AtomicLong();
      calls.add(count);
      servers.add(FramedServer.start(req -> {
        count.incrementAndGet();
        return CompletableFuture.completedFuture(req.payload());
      }));
    }
  }

  @AfterEach
  void stop() {
    servers.forEach(FramedServer::close);
    dns.close();
  }

  private TestDnsServer.Srv srv(int backend, int weight) {
    return new TestDnsServer.Srv(10, weight, servers.get(backend).port(), "local.orders.test");
  }

  private BallastClient<byte[], byte[]> client(Duration period) {
    return BallastClient.framed().balancer(Algorithm.VNSWRR).timeout(Duration.ofSeconds(2))
        .source(DnsSource.forSrv(SRV).nameServer(dns.address()).period(period).build())
        .build();
  }

  @Test
  void followsChangedAnswersWithinThePeriod() throws Exception {
    dns.setSrv(SRV, srv(0, 1), srv(1, 3), new TestDnsServer.Srv(20, 1,
        servers.get(2).port(), "local.orders.test")); // priority 20: a backup, unused
    try (BallastClient<byte[], byte[]> client = client(Duration.ofSeconds(1))) {
      assertThat(client.endpointsWhen(es -> es.size() == 2).get(10, TimeUnit.SECONDS))
          .extracting(Object::toString).containsExactlyInAnyOrder(
          "127.0.0.1:" + servers.get(0).port(), "127.0.0.1:" + servers.get(1).port() + ";weight=3");
      calls.forEach(c -> c.set(0));
      for (int i = 0; i < 400; i++) {
        client.call(new byte[] {1}).get(5, TimeUnit.SECONDS);
      }
      assertThat(calls).extracting(AtomicLong::get).containsExactly(100L, 300L, 0L);

      dns.setSrv(SRV, srv(2, 1));
      long changed = System.nanoTime();
      client.endpointsWhen(only(2)).get(10, TimeUnit.SECONDS);
      // one period (1 s) and the read, with room for a loaded machine; the default is 30 s
      assertThat(System.nanoTime() - changed).as("ns to follow; the period is 1 s")
          .isLessThan(TimeUnit.SECONDS.toNanos(3));
      client.call(new byte[] {1}).get(5, TimeUnit.SECONDS);
      assertThat(calls).extracting(AtomicLong::get).containsExactly(100L, 300L, 1L);
    }
  }

  @Test
  void reResolvesAtOnceWhenEveryEndpointFails() throws Exception {
    dns.setSrv(SRV, srv(0, 1));
    try (BallastClient<byte[], byte[]> client = client(Duration.ofSeconds(30))) {
      client.endpointsWhen(only(0)).get(10, TimeUnit.SECONDS);
      client.call(new byte[] {1}).get(5, TimeUnit.SECONDS);
      int queries = dns.queries();
      dns.setSrv(SRV, srv(1, 1));
      servers.get(0).close(); // the only endpoint goes: connections to it fail
      long failed = System.nanoTime();
      callUntil(client, only(1));
      // the period is 30 s: only the early re-resolution can have found the new answer
      assertThat(System.nanoTime() - failed).isLessThan(TimeUnit.SECONDS.toNanos(5));
      assertThat(dns.queries()).isGreaterThan(queries);
      client.call(new byte[] {1}).get(5, TimeUnit.SECONDS);
      assertThat(calls.get(1).get()).as("the new endpoint answers").isPositive();
    }
  }

  @Test
  void aGrpcChannelResolvesARecordsThroughTheBallastDnsScheme() throws Exception {
    try (Backends backends = new Backends()) {
      Backends.Backend b = backends.add();
      dns.setA("grpc.orders.test", "127.0.0.1");
      ManagedChannel ch = ManagedChannelBuilder.forTarget("ballast-dns://"
          + dns.address().getAddress().getHostAddress() + ":" + dns.address().getPort()
          + "/grpc.orders.test:" + b.grpc.getPort()).usePlaintext().build();
      try {
        ClientCalls.blockingUnaryCall(ch, Backends.CALL,
            CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS).withWaitForReady(),
            new byte[] {1});
        assertThat(b.grpcCalls.get()).isEqualTo(1);
      } finally {
        ch.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
      }
    }
  }

  /** The endpoints are backend {@code backend} alone. */
  private Predicate<List<Endpoint>> only(int backend) {
    String address = "127.0.0.1:" + servers.get(backend).port();
    return es -> es.size() == 1 && es.get(0).address().equals(address);
  }

  /**
   * Calls (their failures are what make the client resolve again early) until the client's
   * endpoints satisfy {@code condition}, waiting on that between calls; 10 s at most.
   */
  private static void callUntil(BallastClient<byte[], byte[]> client,
      Predicate<List<Endpoint>> condition) throws Exception {
    CompletableFuture<List<Endpoint>> met = client.endpointsWhen(condition);
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (!met.isDone()) {
      if (System.nanoTime() > end) {
        throw new AssertionError("condition not met within 10 s; endpoints " + client.endpoints());
      }
      client.call(new byte[] {1}).handle((r, e) -> r).get(5, TimeUnit.SECONDS); // may fail
      try {
        met.get(5, TimeUnit.MILLISECONDS); // returns at once when the endpoints change
      } catch (TimeoutException e) {
        // not yet: call again
      }
    }
  }
}
