package dev.ballast.discovery;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.core.Endpoint;
import dev.ballast.core.source.Registrar;
import dev.ballast.core.source.Registration;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * For each registry, servers register through the registration API and a framed lb-netty
 * client and a gRPC channel follow them: exact weighted shares; a fourth server's share within
 * 1 s of its registration; no call to a deregistered server later than 1 s after its
 * deregistration, nor to a server whose registrant process was killed later than 1 s after
 * its session or lease expired; a weight changed in the registry moves the shares.
 */
class RegistryScenarioTest {

  static Stream<String> registries() {
    return Stream.of("zookeeper", "etcd");
  }

  static TestRegistry open(String kind) throws Exception {
    return kind.equals("zookeeper") ? TestRegistry.zookeeper() : TestRegistry.etcd();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("registries")
  void clientsFollowRegistrationsUpdatesDeregistrationsAndDeadRegistrants(String kind)
      throws Exception {
    long second = TimeUnit.SECONDS.toNanos(1);
    try (TestRegistry registry = open(kind);
        Backends backends = new Backends();
        Registrar registrar = registry.registrar(Duration.ofSeconds(10))) {
      List<Registration[]> regs = new ArrayList<>();
      for (int w = 1; w <= 3; w++) {
        Backends.Backend b = backends.add();
        regs.add(new Registration[] {
            registrar.register("framed", Endpoint.parse(b.framedAddress() + ";weight=" + w)),
            registrar.register("grpc", Endpoint.parse(b.grpcAddress() + ";weight=" + w))});
      }
      try (Clients clients = new Clients(registry, backends)) {
        clients.awaitFramedEndpoints(3); // before its first push, a client has no endpoint
        clients.awaitShares(1, 2, 3);

        // a fourth, registered by another process: its share within 1 s
        Backends.Backend fourth = backends.add();
        Process child = registrant(registry, "framed=" + fourth.framedAddress() + ";weight=2",
            "grpc=" + fourth.grpcAddress() + ";weight=2");
        try {
          long took = clients.callUntil(
              () -> fourth.framedCalls.get() > 0 && fourth.grpcCalls.get() > 0);
          assertThat(took).as("ns from registration to the first calls").isLessThan(second);
          clients.awaitShares(1, 2, 3, 2);

          // a weight changed in the registry moves the shares
          for (Registration r : regs.get(0)) {
            r.update(r.endpoint().withWeight(4));
          }
          clients.awaitShares(4, 2, 3, 2);

          // deregistered: no call 1 s after
          for (Registration r : regs.get(1)) {
            r.close();
          }
          long deregistered = System.nanoTime();
          clients.callFor(Duration.ofMillis(1500));
          Backends.Backend gone = backends.get(1);
          assertThat(gone.lastFramedCall.get() - deregistered).isLessThan(second);
          assertThat(gone.lastGrpcCall.get() - deregistered).isLessThan(second);

          // the registrant dies: no call 1 s after its session or lease expired
          child.destroyForcibly();
          long expired = awaitGone(registry, clients, fourth);
          clients.callFor(Duration.ofMillis(1500));
          assertThat(fourth.lastFramedCall.get() - expired).isLessThan(second);
          assertThat(fourth.lastGrpcCall.get() - expired).isLessThan(second);
          clients.awaitShares(4, 0, 3, 0);
          assertThat(clients.failures).as("failed calls: " + clients.failureCauses).isZero();
        } finally {
          child.destroyForcibly();
        }
      }
    }
  }

  // calls until the registry (read by a separate client) holds neither entry of the backend;
  // returns that moment
  private static long awaitGone(TestRegistry registry, Clients clients, Backends.Backend b)
      throws Exception {
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
    while (registry.holds("framed", b.framedAddress()) || registry.holds("grpc", b.grpcAddress())) {
      if (System.nanoTime() > end) {
        throw new AssertionError("entries of the killed registrant still there after 15 s");
      }
      clients.callBoth();
    }
    return System.nanoTime();
  }

  /** Starts {@link Registrant} in a JVM of its own with a 2 s session or lease. */
  static Process registrant(TestRegistry registry, String... entries) throws Exception {
    List<String> cmd = new ArrayList<>(List.of(
        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-cp", System.getProperty("java.class.path"), "-Xshare:auto", "-XX:TieredStopAtLevel=1",
        Registrant.class.getName()));
    cmd.addAll(List.of(registry.registrantArgs()));
    cmd.add("2");
    cmd.addAll(List.of(entries));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    BufferedReader out = new BufferedReader(
        new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
    String line;
    StringBuilder seen = new StringBuilder();
    while ((line = out.readLine()) != null) {
      if (line.equals("registered")) {
        // drain the rest in the background so the child never blocks on its output
        Thread drain = new Thread(() -> out.lines().forEach(l -> { }), "registrant-output");
        drain.setDaemon(true);
        drain.start();
        return p;
      }
      seen.append(line).append('\n');
    }
    throw new AssertionError("registrant exited without registering: " + seen
        + Map.of("exit", p.waitFor()));
  }
}
