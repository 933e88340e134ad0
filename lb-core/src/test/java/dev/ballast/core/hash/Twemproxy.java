package dev.ballast.core.hash;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Stream;

/**
 * A real twemproxy ({@code /usr/sbin/nutcracker}, Debian's {@code nutcracker}) with {@code
 * distribution: ketama} pools in front of real memcached servers ({@code /usr/bin/memcached}),
 * all on free 127.0.0.1 ports, started from a generated configuration in a temporary directory
 * and stopped by {@link #close()}. Both are installed by scripts/install-test-deps.sh. Pools share
 * the memcached servers, so each pool should be given keys of its own.
 */
final class Twemproxy implements AutoCloseable {

  static final Path NUTCRACKER = Path.of("/usr/sbin/nutcracker");
  static final Path MEMCACHED = Path.of("/usr/bin/memcached");

  /**
   * One pool: its key hash ({@code hash:}, e.g. {@code fnv1a_64}) and servers, the first {@code
   * weights.length} memcached servers with these weights and, unless null, these names.
   */
  record Pool(String hash, int[] weights, String[] names) {}

  private final Path dir;
  private final List<Process> processes = new ArrayList<>();
  private final int[] memcachedPorts;
  private final int[] poolPorts;

  /** Starts {@code memcacheds} memcached servers and one twemproxy serving the pools. */
  Twemproxy(int memcacheds, List<Pool> pools) throws IOException {
    for (Path p : List.of(NUTCRACKER, MEMCACHED)) {
      if (!Files.isExecutable(p)) {
        throw new IllegalStateException(p + " not found (expected: installed by "
            + "scripts/install-test-deps.sh: apt-get install nutcracker memcached)");
      }
    }
    dir = Files.createTempDirectory("ballast-twemproxy");
    memcachedPorts = new int[memcacheds];
    poolPorts = new int[pools.size()];
    try {
      startAll(pools);
    } catch (IOException | RuntimeException e) {
      close();
      throw e;
    }
  }

  private void startAll(List<Pool> pools) throws IOException {
    boolean root = "root".equals(System.getProperty("user.name"));
    for (int i = 0; i < memcachedPorts.length; i++) {
      memcachedPorts[i] = freePort();
      List<String> cmd = new ArrayList<>(List.of(MEMCACHED.toString(), "-l", "127.0.0.1",
          "-p", Integer.toString(memcachedPorts[i]), "-U", "0", "-m", "64", "-t", "1"));
      if (root) {
        cmd.addAll(List.of("-u", "root"));
      }
      start(cmd, "memcached-" + i);
    }
    StringBuilder conf = new StringBuilder();
    for (int p = 0; p < pools.size(); p++) {
      Pool pool = pools.get(p);
      poolPorts[p] = freePort();
      conf.append("pool").append(p).append(":\n  listen: 127.0.0.1:").append(poolPorts[p])
          .append("\n  hash: ").append(pool.hash())
          .append("\n  distribution: ketama\n  auto_eject_hosts: false\n  timeout: 10000\n")
          .append("  servers:\n");
      for (int i = 0; i < pool.weights().length; i++) {
        conf.append("   - 127.0.0.1:").append(memcachedPorts[i]).append(':')
            .append(pool.weights()[i])
            .append(pool.names() == null ? "" : " " + pool.names()[i]).append('\n');
      }
    }
    Path yml = dir.resolve("nutcracker.yml");
    Files.writeString(yml, conf.toString(), StandardCharsets.UTF_8);
    start(List.of(NUTCRACKER.toString(), "-c", yml.toString(), "-s",
        Integer.toString(freePort()), "-a", "127.0.0.1", "-o", dir.resolve("nc.log").toString()),
        "nutcracker");
    for (int p : memcachedPorts) {
      awaitAccepting(p);
    }
    for (int p : poolPorts) {
      awaitAccepting(p);
    }
  }

  private void start(List<String> cmd, String name) throws IOException {
    processes.add(new ProcessBuilder(cmd).redirectErrorStream(true)
        .redirectOutput(dir.resolve(name + ".out").toFile()).start());
  }

  /** Returns the memcached ports, in configuration order. */
  int[] memcachedPorts() {
    return memcachedPorts.clone();
  }

  /** Stores every key (value "1") through a pool, pipelined in batches of 500. */
  void setAll(int pool, List<String> keys) throws IOException {
    try (Socket s = connect(poolPorts[pool])) {
      OutputStream out = new BufferedOutputStream(s.getOutputStream(), 1 << 16);
      InputStream in = new BufferedInputStream(s.getInputStream(), 1 << 16);
      for (int from = 0; from < keys.size(); from += 500) {
        int to = Math.min(keys.size(), from + 500);
        for (int i = from; i < to; i++) {
          out.write(("set " + keys.get(i) + " 0 0 1\r\n1\r\n").getBytes(StandardCharsets.UTF_8));
        }
        out.flush();
        for (int i = from; i < to; i++) {
          String reply = line(in);
          if (!reply.equals("STORED")) {
            throw new IOException("twemproxy answered " + reply + " to set " + keys.get(i)
                + "; log: " + log());
          }
        }
      }
    }
  }

  /** Returns which of the keys memcached server {@code server} holds (multi-gets of 100). */
  Set<String> heldBy(int server, List<String> keys) throws IOException {
    Set<String> held = new HashSet<>();
    try (Socket s = connect(memcachedPorts[server])) {
      OutputStream out = new BufferedOutputStream(s.getOutputStream(), 1 << 16);
      InputStream in = new BufferedInputStream(s.getInputStream(), 1 << 16);
      for (int from = 0; from < keys.size(); from += 100) {
        StringBuilder get = new StringBuilder("get");
        for (int i = from; i < Math.min(keys.size(), from + 100); i++) {
          get.append(' ').append(keys.get(i));
        }
        out.write(get.append("\r\n").toString().getBytes(StandardCharsets.UTF_8));
        out.flush();
        for (String l = line(in); !l.equals("END"); l = line(in)) {
          if (!l.startsWith("VALUE ")) {
            throw new IOException("memcached answered " + l);
          }
          held.add(l.substring(6, l.indexOf(' ', 6)));
          line(in); // the value
        }
      }
    }
    return held;
  }

  private static String line(InputStream in) throws IOException {
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    for (int c = in.read(); c != '\n'; c = in.read()) {
      if (c < 0) {
        throw new IOException("connection closed mid-line: " + b);
      }
      if (c != '\r') {
        b.write(c);
      }
    }
    return b.toString(StandardCharsets.UTF_8);
  }

  private static Socket connect(int port) throws IOException {
    Socket s = new Socket();
    s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 2000);
    s.setSoTimeout(20_000);
    s.setTcpNoDelay(true);
    return s;
  }

  private void awaitAccepting(int p) throws IOException {
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (true) {
      for (Process process : processes) {
        if (!process.isAlive()) {
          throw new IllegalStateException("exited: " + process.info().commandLine().orElse("?")
              + "; log: " + log());
        }
      }
      try {
        connect(p).close();
        return;
      } catch (IOException notYet) {
        if (System.nanoTime() - end > 0) {
          throw new IOException("nothing accepts on port " + p + "; log: " + log(), notYet);
        }
        LockSupport.parkNanos(5_000_000);
      }
    }
  }

  private String log() {
    try (Stream<Path> files = Files.list(dir)) {
      StringBuilder sb = new StringBuilder();
      for (Path f : (Iterable<Path>) files.filter(f -> !f.toString().endsWith(".yml"))::iterator) {
        sb.append(f.getFileName()).append(": ").append(Files.readString(f)).append('\n');
      }
      return sb.toString();
    } catch (IOException e) {
      return e.toString();
    }
  }

  // the ports handed out: the kernel may give a just-closed port 0 twice, and two pools on one
  // port make nutcracker refuse its configuration
  private final Set<Integer> portsTaken = new HashSet<>();

  private int freePort() throws IOException {
    for (;;) {
      try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
        if (portsTaken.add(s.getLocalPort())) {
          return s.getLocalPort();
        }
      }
    }
  }

  /** Stops every process (TERM, then KILL after 10 s) and deletes the directory. */
  @Override
  public void close() throws IOException {
    for (Process p : processes) {
      p.destroy();
    }
    try {
      for (Process p : processes) {
        if (!p.waitFor(10, TimeUnit.SECONDS)) {
          p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
      }
    } catch (InterruptedException e) {
      processes.forEach(Process::destroyForcibly);
      Thread.currentThread().interrupt();
    }
    try (Stream<Path> files = Files.walk(dir)) {
      files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
    }
  }
}
