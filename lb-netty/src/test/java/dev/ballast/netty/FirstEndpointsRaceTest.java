package dev.ballast.netty;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.core.Algorithm;
import dev.ballast.core.Balancer;
import dev.ballast.core.BalancerConfig;
import dev.ballast.core.Endpoint;
import dev.ballast.core.Node;
import dev.ballast.netty.framed.FramedServer;
import dev.ballast.netty.testing.ManualSource;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A call whose pick finds no endpoint while the source's first ones are on their way: when they
 * land between the failed pick and the call's decision to wait, the call picks again at once
 * and succeeds (it failed with {@code vnswrr: no endpoints}, the listing well within the
 * startup wait). The race is made deterministic: the balancer's first failed pick pushes the
 * first listing and waits until the client has taken it.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class FirstEndpointsRaceTest {

  @Test
  void aFirstListingThatLandsDuringTheFailedPickServesTheCall() throws Exception {
    ManualSource source = new ManualSource("manual");
    AtomicReference<BallastClient<byte[], byte[]>> client = new AtomicReference<>();
    AtomicBoolean pushed = new AtomicBoolean();
    try (FramedServer server = FramedServer.start(FramedServer.echo())) {
      BalancerFactory racing = new BalancerFactory() {
        @Override
        public <T> Balancer<T> create(BalancerConfig config) {
          Balancer<T> vnswrr = Algorithm.VNSWRR.create(config);
          return new Balancer<T>() {
            @Override
            public Node<T> pick() {
              try {
                return vnswrr.pick();
              } catch (RuntimeException e) {
                if (pushed.compareAndSet(false, true)) { // the first listing lands now
                  source.listener().onEntries(Map.of("a", server.endpoint().toString()));
                  client.get().endpointsWhen(es -> !es.isEmpty()).join();
                }
                throw e;
              }
            }

            @Override
            public List<Node<T>> update(Collection<Endpoint> endpoints,
                Function<? super Endpoint, ? extends T> values) {
              return vnswrr.update(endpoints, values);
            }

            @Override
            public List<Node<T>> nodes() {
              return vnswrr.nodes();
            }

            @Override
            public String name() {
              return vnswrr.name();
            }
          };
        }
      };
      try (BallastClient<byte[], byte[]> c = BallastClient.framed().source(source)
          .balancer(racing).timeout(Duration.ofSeconds(2)).build()) {
        client.set(c);
        assertThat(c.call(new byte[] {7}).get(10, TimeUnit.SECONDS)).containsExactly(7);
        assertThat(pushed).isTrue(); // the race happened
      }
    }
  }
}
