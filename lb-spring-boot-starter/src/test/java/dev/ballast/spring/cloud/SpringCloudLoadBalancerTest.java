package dev.ballast.spring.cloud;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.ballast.core.Node;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.cloud.client.ServiceInstance;
import org.springframework.cloud.client.loadbalancer.LoadBalanced;
import org.springframework.cloud.client.loadbalancer.LoadBalancerClient;
import org.springframework.cloud.loadbalancer.core.ReactorLoadBalancer;
import org.springframework.cloud.loadbalancer.core.RoundRobinLoadBalancer;
import org.springframework.cloud.loadbalancer.core.ServiceInstanceListSupplier;
import org.springframework.cloud.loadbalancer.support.LoadBalancerClientFactory;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;
import org.springframework.web.client.RestClient;

/**
 * A {@code @LoadBalanced} {@link RestClient} over Spring Cloud's {@code SimpleDiscoveryClient}
 * (instances from properties) and four real HTTP servers on 127.0.0.1, one 100x slower (500 ms
 * against 5 ms): Spring Cloud's round robin sends it a quarter of the calls, Ballast's
 * p2c-peak-ewma, chosen with one property, under 5% of 1,000. The slow server's latency stands
 * well above what a call costs the client on a busy machine (20-50 ms at a load of 20 on 2
 * cores) times the calls pending on a fast server: at 200 ms a loaded fast server's cost came
 * near it and the slow one got 5.5% once, at a load of 25.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class SpringCloudLoadBalancerTest {

  private static final int CALLS = 1_000;
  private static final int ROUND_ROBIN_CALLS = 40;
  private static final int CONCURRENCY = 4;

  private static final ScheduledExecutorService delays = Executors.newScheduledThreadPool(2);
  private static final List<HttpServer> servers = new ArrayList<>();
  private static final List<AtomicInteger> calls = new ArrayList<>();

  @BeforeAll
  static void startServers() throws IOException {
    for (int i = 0; i < 4; i++) {
      int index = i;
      long delayMs = i == 0 ? 500 : 5;
      AtomicInteger count = new AtomicInteger();
      HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 64);
      server.createContext("/", exchange -> {
        count.incrementAndGet();
        // Answered later from a scheduler: a slow server without a sleeping thread.
        delays.schedule(() -> answer(exchange, index), delayMs, TimeUnit.MILLISECONDS);
      });
      server.setExecutor(Executors.newFixedThreadPool(4));
      server.start();
      servers.add(server);
      calls.add(count);
    }
  }

  private static void answer(HttpExchange exchange, int index) {
    byte[] body = Integer.toString(index).getBytes(StandardCharsets.UTF_8);
    try (OutputStream out = exchange.getResponseBody()) {
      exchange.sendResponseHeaders(200, body.length);
      out.write(body);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @AfterAll
  static void stopServers() {
    for (HttpServer s : servers) {
      s.stop(0);
      ((ExecutorService) s.getExecutor()).shutdownNow();
    }
    delays.shutdownNow();
  }

  private static ConfigurableApplicationContext start(String... extra) {
    List<String> props = new ArrayList<>(List.of("spring.main.banner-mode=off",
        // A run lasts a few seconds. With the default decay time of 10 s, one stall of a busy
        // machine raises the fast servers' peak estimates for the whole run and sends calls to
        // the slow one; 1 s lets them recover within it, and re-probes the slow one less often
        // than 250 or 500 ms.
        "ballast.defaults.decay-time=1s"));
    props.addAll(List.of(extra));
    return run(App.class, servers, props);
  }

  /**
   * Starts an application whose service {@code backends} is the given servers, through Spring
   * Cloud's simple discovery client.
   */
  static ConfigurableApplicationContext run(Class<?> app, List<HttpServer> servers,
      List<String> props) {
    List<String> all = new ArrayList<>(props);
    for (int i = 0; i < servers.size(); i++) {
      all.add("spring.cloud.discovery.client.simple.instances.backends[" + i + "].uri="
          + "http://127.0.0.1:" + servers.get(i).getAddress().getPort());
    }
    return new SpringApplicationBuilder(app).web(WebApplicationType.NONE)
        .properties(all.toArray(String[]::new)).run();
  }

  /** Runs {@code count} calls from CONCURRENCY threads; returns the slow server's share. */
  private static double slowShare(ConfigurableApplicationContext ctx, int count)
      throws Exception {
    RestClient client = ctx.getBean(RestClient.Builder.class).build();
    calls.forEach(c -> c.set(0));
    AtomicInteger issued = new AtomicInteger();
    ExecutorService callers = Executors.newFixedThreadPool(CONCURRENCY);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int t = 0; t < CONCURRENCY; t++) {
        done.add(callers.submit(() -> {
          while (issued.incrementAndGet() <= count) {
            String body = client.get().uri("http://backends/").retrieve().body(String.class);
            assertThat(body).isIn("0", "1", "2", "3");
          }
        }));
      }
      for (Future<?> f : done) {
        f.get(60, TimeUnit.SECONDS);
      }
    } finally {
      callers.shutdownNow();
    }
    int total = calls.stream().mapToInt(AtomicInteger::get).sum();
    assertThat(total).isEqualTo(count);
    return (double) calls.get(0).get() / total;
  }

  @Test
  void p2cPeakEwmaSendsTheSlowBackendUnderFivePercentWhereRoundRobinSendsAQuarter()
      throws Exception {
    double roundRobin;
    try (ConfigurableApplicationContext ctx = start()) {
      // Round robin's share is exact whatever the latencies: 40 calls show it.
      roundRobin = slowShare(ctx, ROUND_ROBIN_CALLS);
      assertThat(ctx.getBean(LoadBalancerClientFactory.class).getInstance("backends"))
          .isInstanceOf(RoundRobinLoadBalancer.class);
    }
    double ballast;
    try (ConfigurableApplicationContext ctx =
        start("ballast.spring-cloud.balancer=p2c-peak-ewma")) {
      ballast = slowShare(ctx, CALLS);
      LoadBalancerClientFactory factory = ctx.getBean(LoadBalancerClientFactory.class);
      BallastServiceInstanceLoadBalancer lb =
          (BallastServiceInstanceLoadBalancer) factory.getInstance("backends");
      // A service with a configuration of its own keeps its balancer.
      assertThat(factory.getInstance("pinned")).isInstanceOf(RoundRobinLoadBalancer.class);
      // Every call's lifecycle ended its pick; a plain choose() is balanced but not counted.
      ServiceInstance chosen = ctx.getBean(LoadBalancerClient.class).choose("backends");
      assertThat(chosen.getHost()).isEqualTo("127.0.0.1");
      List<Node<ServiceInstance>> nodes = lb.balancer().nodes();
      assertThat(nodes).hasSize(4).allSatisfy(n -> assertThat(n.pending()).isZero());
    }
    System.out.printf("slow backend share: Spring Cloud round robin %.3f of %d calls, "
        + "Ballast p2c-peak-ewma %.3f of %d%n", roundRobin, ROUND_ROBIN_CALLS, ballast, CALLS);
    assertThat(roundRobin).isEqualTo(0.25);
    assertThat(ballast).isLessThan(0.05);
  }

  @SpringBootConfiguration(proxyBeanMethods = false)
  @EnableAutoConfiguration
  @org.springframework.cloud.loadbalancer.annotation.LoadBalancerClient(name = "pinned", configuration = RoundRobinOfItsOwn.class)
  static class App {
    @Bean
    @LoadBalanced
    RestClient.Builder restClientBuilder() {
      return RestClient.builder();
    }
  }

  /** A service's own configuration (not a bean of the application context). */
  static class RoundRobinOfItsOwn {
    @Bean
    ReactorLoadBalancer<ServiceInstance> roundRobin(Environment environment,
        LoadBalancerClientFactory factory) {
      String name = LoadBalancerClientFactory.getName(environment);
      return new RoundRobinLoadBalancer(
          factory.getLazyProvider(name, ServiceInstanceListSupplier.class), name);
    }
  }
}
