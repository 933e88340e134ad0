package dev.ballast.discovery;

import dev.ballast.core.source.Registrar;
import dev.ballast.discovery.etcd.EtcdRegistrar;
import dev.ballast.discovery.etcd.EtcdServer;
import dev.ballast.discovery.zookeeper.ZooKeeperRegistrar;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.options.DeleteOption;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingCluster;

/** A real registry server for the end-to-end tests, and what the tests do with it. */
abstract class TestRegistry implements AutoCloseable {

  /** The base path or prefix every test service lives under. */
  static final String BASE = "/services";

  /** The target a client follows for a service. */
  abstract String target(String service);

  /** Returns a registrar in this JVM; session or lease of {@code ttl}. */
  abstract Registrar registrar(Duration ttl);

  /** Writes an entry directly, bypassing the registrar (a malformed one, say). */
  abstract void putRaw(String service, String key, String value) throws Exception;

  /** Whether the registry holds the entry of an address now (read by a separate client). */
  abstract boolean holds(String service, String address) throws Exception;

  /** Stops the server, keeping its data. */
  abstract void stop() throws Exception;

  /** Starts the server again on the same port and data. */
  abstract void restart() throws Exception;

  /**
   * Empties the registry of every service while the servers stay up: ZooKeeper restarts on an
   * empty data directory; etcd's base prefix is deleted in one transaction.
   */
  abstract void wipe() throws Exception;

  /** Arguments for {@link Registrant}: kind and connection. */
  abstract String[] registrantArgs();

  static TestRegistry zookeeper() throws Exception {
    return new ZooKeeper();
  }

  static TestRegistry etcd() throws Exception {
    return new Etcd();
  }

  static final class ZooKeeper extends TestRegistry {
    // a cluster of one, for its kill(): connections and the listening socket close first, as
    // when the process dies (a TestingServer's stop() closes them while it still answers)
    final TestingCluster server;
    final CuratorFramework admin;
    final File dir;

    ZooKeeper() throws Exception {
      dir = Files.createTempDirectory("ballast-zk").toFile();
      // a 100 ms tick, so that sessions as short as 2 s are allowed (ZooKeeper's minimum is
      // two ticks)
      server = new TestingCluster(new InstanceSpec(dir, -1, -1, -1, true, 1, 100, -1));
      server.start();
      admin = CuratorFrameworkFactory.newClient(server.getConnectString(), 30_000, 5_000,
          new RetryOneTime(100));
      admin.start();
    }

    @Override
    String target(String service) {
      return "zookeeper://" + server.getConnectString() + BASE + "/" + service;
    }

    @Override
    Registrar registrar(Duration ttl) {
      return ZooKeeperRegistrar.connect(server.getConnectString(), BASE, ttl);
    }

    @Override
    void putRaw(String service, String key, String value) throws Exception {
      admin.create().creatingParentsIfNeeded().forPath(BASE + "/" + service + "/" + key,
          value.getBytes(StandardCharsets.UTF_8));
    }

    @Override
    boolean holds(String service, String address) throws Exception {
      return admin.checkExists().forPath(BASE + "/" + service + "/" + address) != null;
    }

    @Override
    void stop() throws Exception {
      server.getServers().get(0).kill();
    }

    @Override
    void restart() throws Exception {
      server.getServers().get(0).restart();
    }

    @Override
    void wipe() throws Exception {
      server.getServers().get(0).kill();
      try (Stream<Path> files = Files.walk(dir.toPath())) {
        files.sorted(Comparator.reverseOrder()).filter(p -> !p.equals(dir.toPath()))
            .forEach(p -> p.toFile().delete());
      }
      server.getServers().get(0).restart();
      // the admin client's session is unknown to the new server: wait for its next one
      long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (true) {
        try {
          admin.checkExists().forPath("/");
          return;
        } catch (Exception e) {
          if (System.nanoTime() > end) {
            throw e;
          }
        }
      }
    }

    @Override
    String[] registrantArgs() {
      return new String[] {"zookeeper", server.getConnectString()};
    }

    @Override
    public void close() throws Exception {
      admin.close();
      server.close();
    }

    @Override
    public String toString() {
      return "zookeeper";
    }
  }

  static final class Etcd extends TestRegistry {
    final EtcdServer server;
    final Client admin;

    Etcd() throws Exception {
      server = EtcdServer.start();
      admin = Client.builder().endpoints(server.clientUrl()).build();
    }

    @Override
    String target(String service) {
      return "etcd://" + server.hostPort() + BASE + "/" + service + "/";
    }

    @Override
    Registrar registrar(Duration ttl) {
      return EtcdRegistrar.of(admin, BASE + "/", ttl);
    }

    @Override
    void putRaw(String service, String key, String value) throws Exception {
      admin.getKVClient().put(bytes(BASE + "/" + service + "/" + key), bytes(value))
          .get(10, TimeUnit.SECONDS);
    }

    @Override
    boolean holds(String service, String address) throws Exception {
      return admin.getKVClient().get(bytes(BASE + "/" + service + "/" + address))
          .get(10, TimeUnit.SECONDS).getCount() > 0;
    }

    @Override
    void stop() throws Exception {
      server.stop();
    }

    @Override
    void restart() throws Exception {
      server.restart();
    }

    @Override
    void wipe() throws Exception {
      admin.getKVClient().delete(bytes(BASE + "/"), DeleteOption.builder()
          .isPrefix(true).build()).get(10, TimeUnit.SECONDS);
    }

    @Override
    String[] registrantArgs() {
      return new String[] {"etcd", server.clientUrl()};
    }

    @Override
    public void close() throws Exception {
      admin.close();
      server.close();
    }

    @Override
    public String toString() {
      return "etcd";
    }

    private static ByteSequence bytes(String s) {
      return ByteSequence.from(s, StandardCharsets.UTF_8);
    }
  }
}
