package dev.ballast.spring.cloud;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import dev.ballast.core.BalancerConfig;
import dev.ballast.core.ChildBalancer;
import dev.ballast.core.Node;
import dev.ballast.core.config.OptionSet;
import dev.ballast.core.config.ValueType;
import dev.ballast.core.config.Values;
import dev.ballast.core.engine.Distributor;
import dev.ballast.core.engine.DistributorBalancer;
import dev.ballast.core.policy.BalancingPolicy;
import dev.ballast.core.policy.PolicyRegistry;
import dev.ballast.core.testing.LogRecorder;
import dev.ballast.spring.InvalidBallastPropertyException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.cloud.client.loadbalancer.LoadBalanced;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.web.client.RestClient;

/**
 * A team's own policy, registered in lb-core, balances Spring Cloud requests by name with its
 * own options ({@code ballast.spring-cloud.policy.*}), over three real HTTP servers on
 * 127.0.0.1; a misspelt option of it stops start-up naming the property.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SpringCloudPolicyTest {

  /**
   * Every pick goes to the endpoint labelled {@code tier} (when given), else to the one on
   * {@code port}, else to the lowest port.
   */
  static final class PinnedPort implements BalancingPolicy<Values> {
    @Override
    public String name() {
      return "pinned_port";
    }

    @Override
    public OptionSet<Values, Values> options() {
      return OptionSet.ofValues("pinnedPort", v -> { }, List.of(
          Values.option("port", ValueType.INT, 0, "8080", "x"),
          Values.option("tier", ValueType.STRING, "", "gold", "")));
    }

    @Override
    public <T> ChildBalancer<T> newBalancer(BalancerConfig common, Values config) {
      int port = config.get("port", 0);
      String tier = config.get("tier", "");
      return new DistributorBalancer<>(name(), common, new Distributor.Factory() {
        @Override
        public <U> Distributor<U> over(List<Node<U>> nodes, int[] weights, BalancerConfig c) {
          Node<U> pinned = nodes.stream()
              .filter(n -> tier.isEmpty() ? n.endpoint().port() == port
                  : tier.equals(n.endpoint().labels().get("tier")))
              .findFirst()
              .orElse(nodes.stream().min(Comparator.comparingInt(n -> n.endpoint().port()))
                  .orElseThrow());
          return () -> pinned;
        }
      });
    }
  }

  private static final List<HttpServer> servers = new ArrayList<>();

  @BeforeAll
  static void start() throws IOException {
    if (PolicyRegistry.defaultRegistry().find("pinned_port").isEmpty()) {
      PolicyRegistry.defaultRegistry().register(new PinnedPort());
    }
    for (int i = 0; i < 3; i++) {
      HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 16);
      byte[] body = Integer.toString(server.getAddress().getPort())
          .getBytes(StandardCharsets.UTF_8);
      server.createContext("/", exchange -> {
        try (OutputStream out = exchange.getResponseBody()) {
          exchange.sendResponseHeaders(200, body.length);
          out.write(body);
        }
      });
      server.start();
      servers.add(server);
    }
  }

  @AfterAll
  static void stop() {
    servers.forEach(s -> s.stop(0));
  }

  private static ConfigurableApplicationContext app(String... extra) {
    List<String> props = new ArrayList<>(List.of("spring.main.banner-mode=off",
        "ballast.spring-cloud.balancer=pinned-port"));
    props.addAll(List.of(extra));
    return SpringCloudLoadBalancerTest.run(App.class, servers, props);
  }

  @Test
  void aRegisteredPolicyBalancesEveryServiceWithItsOwnOptions() {
    String second = Integer.toString(servers.get(1).getAddress().getPort());
    try (ConfigurableApplicationContext ctx = app("ballast.spring-cloud.policy.port=" + second)) {
      RestClient client = ctx.getBean(RestClient.Builder.class).build();
      for (int i = 0; i < 20; i++) {
        assertThat(client.get().uri("http://backends/").retrieve().body(String.class))
            .isEqualTo(second);
      }
    }
  }

  @Test
  void anInstancesMetadataReachesThePolicyAsLabels() {
    // the highest port, so that a policy seeing no label (its fallback: the lowest) misses it
    int gold = servers.stream().mapToInt(s -> s.getAddress().getPort()).max().orElseThrow();
    int index = servers.stream().map(s -> s.getAddress().getPort()).toList().indexOf(gold);
    String metadata = "spring.cloud.discovery.client.simple.instances.backends[" + index
        + "].metadata.";
    // what is no label is left out, not a reason to skip the instance: free text quietly, a
    // bad value of a label Ballast reads with a warning
    try (ConfigurableApplicationContext ctx = app("ballast.spring-cloud.policy.tier=gold",
        metadata + "tier=gold", metadata + "note=two words", metadata + "priority=high");
        // opened once the application has set up its logging (which resets every handler)
        LogRecorder log = LogRecorder.on(BallastServiceInstanceLoadBalancer.class.getName())) {
      RestClient client = ctx.getBean(RestClient.Builder.class).build();
      for (int i = 0; i < 20; i++) {
        assertThat(client.get().uri("http://backends/").retrieve().body(String.class))
            .isEqualTo(Integer.toString(gold));
      }
      assertThat(log.lines()).anySatisfy(l -> assertThat(l).startsWith("WARNING backends:")
          .contains("metadata priority left out: priority: high"));
      assertThat(log.lines()).noneMatch(l -> l.startsWith("WARNING") && l.contains("note"));
    }
  }

  @Test
  void aMisspeltOptionOfItStopsStartUpNamingTheProperty() {
    assertThatThrownBy(() -> app("ballast.spring-cloud.policy.prot=1").close())
        .rootCause().isInstanceOf(InvalidBallastPropertyException.class)
        .hasMessageContaining("ballast.spring-cloud.policy.prot")
        .hasMessageContaining("did you mean port?");
    // a client's option under policy: its value shown, and where it goes
    assertThatThrownBy(() -> app("ballast.spring-cloud.policy.slow-start.window=10s").close())
        .rootCause().isInstanceOf(InvalidBallastPropertyException.class)
        .hasMessageContaining("ballast.spring-cloud.policy.slow-start")
        .hasMessageContaining("{window=10s}")
        .hasMessageContaining("but a client's");
  }

  /** Auto-configuration and a {@code @LoadBalanced} builder. */
  @SpringBootConfiguration(proxyBeanMethods = false)
  @EnableAutoConfiguration
  static class App {
    @Bean
    @LoadBalanced
    RestClient.Builder restClientBuilder() {
      return RestClient.builder();
    }
  }
}
