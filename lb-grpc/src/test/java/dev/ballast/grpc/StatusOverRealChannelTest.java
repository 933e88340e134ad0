package dev.ballast.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.core.Availability;
import dev.ballast.core.Health;
import dev.ballast.core.status.BalancerStatus;
import dev.ballast.core.status.EndpointStatus;
import io.grpc.ManagedChannel;
import io.grpc.internal.JsonParser;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link BallastGrpc#status} of a real channel's locality policy over three real gRPC servers:
 * each endpoint's state, a source-given health with its cause, a killed server's closed
 * subchannel, the levels in force, and nothing once the channel is shut down.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class StatusOverRealChannelTest {

  private TestServers servers;
  private ManagedChannel channel;

  @BeforeEach
  void startServers() throws Exception {
    servers = TestServers.start(0, 0, 0);
  }

  @AfterEach
  void stop() throws Exception {
    if (channel != null) {
      channel.shutdownNow();
      channel.awaitTermination(10, TimeUnit.SECONDS);
    }
    servers.close();
  }

  private final java.util.Map<Integer, String> addresses = new java.util.HashMap<>();

  private EndpointStatus at(BalancerStatus s, int server) {
    // a shut-down server no longer knows its port
    String address = addresses.computeIfAbsent(server, i -> "127.0.0.1:" + servers.port(i));
    return s.endpoints().stream().filter(e -> e.address().equals(address)).findFirst()
        .orElseThrow();
  }

  private boolean openAndAnswered(int server) {
    EndpointStatus e = at(BallastGrpc.status(channel).get(0), server);
    return e.availability() == Availability.OPEN && e.rttEstimateNanos() > 0;
  }

  @Test
  void aChannelsPolicyShowsItsEndpointsLevelsAndCauses() throws Exception {
    @SuppressWarnings("unchecked")
    Map<String, ?> serviceConfig = (Map<String, ?>) JsonParser.parse(("{'loadBalancingConfig':"
        + " [{'locality': {'childPolicy': [{'p2c_peak_ewma': {}}]}}]}").replace('\'', '"'));
    channel = NettyChannelBuilder.forTarget(servers.target("zone=a;weight=3", "zone=a",
            "zone=b;priority=1;health=unhealthy"))
        .defaultServiceConfig(serviceConfig).usePlaintext().build();
    // 30 calls, then more until the weighted endpoint is READY and has answered (bounded): on a
    // busy machine its connection could still be opening after 30 calls that all went to the
    // other endpoint of its zone, and the status then said BUSY.
    long ready = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    for (int i = 0; i < 30 || !openAndAnswered(0) && System.nanoTime() < ready; i++) {
      TestServers.call(channel);
    }

    List<BalancerStatus> all = BallastGrpc.status(channel);
    assertThat(all).hasSize(1);
    BalancerStatus s = all.get(0);
    assertThat(s.name()).isEqualTo(channel.authority());
    assertThat(s.policy()).isEqualTo("locality");
    assertThat(s.endpoints()).hasSize(3);
    assertThat(at(s, 0).weight()).isEqualTo(3);
    assertThat(at(s, 0).zone()).isEqualTo("a");
    assertThat(at(s, 0).health()).isEqualTo(Health.HEALTHY);
    assertThat(at(s, 0).healthCause()).isNull();
    assertThat(at(s, 0).availability()).isEqualTo(Availability.OPEN);
    assertThat(at(s, 0).rttEstimateNanos()).isPositive();
    assertThat(at(s, 2).priority()).isEqualTo(1);
    assertThat(at(s, 2).health()).isEqualTo(Health.UNHEALTHY);
    assertThat(at(s, 2).healthCause()).isEqualTo("source: unhealthy");
    assertThat(s.levels()).containsExactly("priority=0 healthy=100% degraded=0% panic=false",
        "priority=1 healthy=0% degraded=0% panic=false");
    assertThat(BallastGrpc.status()).extracting(BalancerStatus::name).contains(s.name());

    at(s, 1);
    servers.server(1).shutdownNow(); // its subchannel fails: the status says it is closed
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (at(BallastGrpc.status(channel).get(0), 1).availability() != Availability.CLOSED
        && System.nanoTime() < deadline) {
      java.util.concurrent.locks.LockSupport.parkNanos(10_000_000); // polls the state, bounded
    }
    assertThat(at(BallastGrpc.status(channel).get(0), 1).availability())
        .isEqualTo(Availability.CLOSED);
    // no active check runs here: the subchannel's failure is the cause
    assertThat(at(BallastGrpc.status(channel).get(0), 1).healthCause())
        .isEqualTo("subchannel: unhealthy");
    assertThat(BallastGrpc.status(channel).get(0).canTakeCalls()).isTrue();

    channel.shutdownNow();
    channel.awaitTermination(10, TimeUnit.SECONDS);
    assertThat(BallastGrpc.status(channel)).isEmpty();
  }
}
