package dev.ballast.compare.peer;

import dev.ballast.compare.driver.Driver;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.cloud.client.loadbalancer.LoadBalanced;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.client.JdkClientHttpRequestFactory;
import org.springframework.web.client.RestClient;

/**
 * {@code ./ballast compare}'s driver for Spring's {@code RestClient} in a Spring Boot application
 * (no web server), calling {@code http://compare/}, blocking, from a pool of 200 threads (a
 * servlet container's callers at Tomcat's default).
 * Policy {@code round_robin}: Spring Cloud LoadBalancer's default round robin over the simple
 * discovery client's instances, a {@code @LoadBalanced} builder on the JDK's HTTP/1.1 client
 * with a read timeout of the run's deadline, Ballast's auto-configuration excluded. Any other
 * policy: Ballast's Spring front end, a client {@code compare} under {@code ballast.clients.*}
 * with that balancer and the deadline, reached through Spring Boot's own {@code RestClient.Builder}.
 */
public final class SpringDriver {

  private static final String BALLAST = "dev.ballast.spring.";

  private SpringDriver() {}

  /** The application: auto-configuration only. */
  @SpringBootConfiguration
  @EnableAutoConfiguration
  static class App {}

  /** Spring Cloud LoadBalancer's {@code @LoadBalanced} builder with the run's read timeout. */
  @Configuration(proxyBeanMethods = false)
  static class Cloud {
    @Bean
    @LoadBalanced
    RestClient.Builder loadBalanced(org.springframework.core.env.Environment env) {
      JdkClientHttpRequestFactory f = new JdkClientHttpRequestFactory(
          HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build());
      f.setReadTimeout(Duration.ofMillis(env.getRequiredProperty("compare.timeout", Long.class)));
      return RestClient.builder().requestFactory(f);
    }
  }

  /** Runs the driver (arguments: see {@link Driver}). */
  public static void main(String[] args) throws Exception {
    Driver.run(args, s -> {
      boolean cloud = s.policy().equals("round_robin");
      List<String> props = new ArrayList<>(List.of("--spring.main.web-application-type=none",
          "--spring.main.banner-mode=off", "--logging.level.root=WARN",
          "--compare.timeout=" + s.timeoutMillis()));
      for (int i = 0; i < s.targets().size(); i++) {
        props.add(cloud ? "--spring.cloud.discovery.client.simple.instances.compare[" + i + "].uri=http://" + s.targets().get(i)
            : "--ballast.clients.compare.endpoints[" + i + "]=" + s.targets().get(i));
      }
      if (cloud) {
        props.add("--spring.autoconfigure.exclude=" + String.join(",", BALLAST + "BallastAutoConfiguration",
            BALLAST + "BallastNettyAutoConfiguration", BALLAST + "BallastGrpcAutoConfiguration",
            BALLAST + "BallastSpringCloudAutoConfiguration", BALLAST + "BallastHttpClientsAutoConfiguration"));
      } else {
        props.addAll(List.of("--ballast.clients.compare.protocol=http",
            "--ballast.clients.compare.balancer=" + s.policy(),
            "--ballast.clients.compare.timeout=" + s.timeoutMillis() + "ms"));
      }
      SpringApplication app = cloud ? new SpringApplication(App.class, Cloud.class) : new SpringApplication(App.class);
      ConfigurableApplicationContext context = app.run(props.toArray(String[]::new));
      RestClient client = context.getBean(RestClient.Builder.class).build();
      // 200 threads, started at once: the callers of a servlet container at Tomcat's default
      ThreadPoolExecutor threads = new ThreadPoolExecutor(200, 200, 1, TimeUnit.MINUTES,
          new LinkedBlockingQueue<>(), r -> {
            Thread t = new Thread(r, "compare-call");
            t.setDaemon(true);
            return t;
          });
      threads.prestartAllCoreThreads();
      return () -> CompletableFuture.supplyAsync(
          () -> client.get().uri("http://compare/").retrieve().toBodilessEntity(), threads);
    });
  }
}
