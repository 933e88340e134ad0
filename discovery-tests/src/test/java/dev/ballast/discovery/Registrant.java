package dev.ballast.discovery;

import dev.ballast.core.Endpoint;
import dev.ballast.core.source.Registrar;
import dev.ballast.discovery.etcd.EtcdRegistrar;
import dev.ballast.discovery.zookeeper.ZooKeeperRegistrar;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;

/**
 * A server's registrant in a process of its own, so that a test can kill it with SIGKILL and
 * watch the registry expire its session or lease. Arguments: {@code zookeeper|etcd},
 * connection, TTL in seconds, then {@code service=endpoint} pairs. Prints {@code registered}
 * once every entry is in the registry, then waits to be killed.
 */
public final class Registrant {

  private Registrant() {}

  public static void main(String[] args) throws Exception {
    Duration ttl = Duration.ofSeconds(Long.parseLong(args[2]));
    Registrar registrar = args[0].equals("zookeeper")
        ? ZooKeeperRegistrar.connect(args[1], TestRegistry.BASE, ttl)
        : EtcdRegistrar.connect(TestRegistry.BASE + "/", ttl, args[1]);
    for (int i = 3; i < args.length; i++) {
      int eq = args[i].indexOf('=');
      registrar.register(args[i].substring(0, eq), Endpoint.parse(args[i].substring(eq + 1)));
    }
    System.out.println("registered");
    System.out.flush();
    new CountDownLatch(1).await(); // registered until the test kills this process
  }
}
