package dev.ballast.discovery.etcd;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.Writer;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A real etcd (Debian's {@code etcd-server}, installed by scripts/install-test-deps.sh) on
 * 127.0.0.1 with free client and peer ports and a temporary data directory; {@link #stop} and
 * {@link #start} again keep the data, {@link #close} deletes it. Short raft timings (10 ms
 * heartbeat, 100 ms election) so that it starts fast and its minimum lease TTL is small.
 */
public final class EtcdServer implements AutoCloseable {

  private final Path dataDir;
  private final int clientPort;
  private final int peerPort;
  private final Path log;
  private Process process;

  private EtcdServer() throws IOException {
    this.dataDir = Files.createTempDirectory("ballast-etcd");
    this.log = dataDir.resolveSibling(dataDir.getFileName() + ".log");
    this.clientPort = freePort();
    int peer = freePort();
    while (peer == clientPort) { // the kernel may give a just-closed port again
      peer = freePort();
    }
    this.peerPort = peer;
  }

  /** Starts a new server and waits until it answers (up to 20 s). */
  public static EtcdServer start() throws IOException {
    EtcdServer s = new EtcdServer();
    s.startProcess();
    return s;
  }

  /** Returns the client URL, {@code http://127.0.0.1:<port>}. */
  public String clientUrl() {
    return "http://127.0.0.1:" + clientPort;
  }

  /** Returns {@code 127.0.0.1:<port>}, for {@code etcd://} targets. */
  public String hostPort() {
    return "127.0.0.1:" + clientPort;
  }

  /** Kills the process (SIGKILL, as a crash), keeping the data directory. */
  public void stop() throws InterruptedException {
    if (process != null) {
      process.destroyForcibly();
      process.waitFor(10, TimeUnit.SECONDS);
      process = null;
    }
  }

  /** Starts the server again on the same ports and data. */
  public void restart() throws IOException {
    startProcess();
  }

  @Override
  public void close() throws Exception {
    stop();
    try (Stream<Path> files = Files.walk(dataDir)) {
      files.sorted(Comparator.reverseOrder()).map(Path::toFile).forEach(File::delete);
    }
    Files.deleteIfExists(log);
  }

  private void startProcess() throws IOException {
    String peer = "http://127.0.0.1:" + peerPort;
    List<String> cmd = List.of(binary(), "--name", "ballast-test",
        "--data-dir", dataDir.resolve("data").toString(),
        "--listen-client-urls", clientUrl(), "--advertise-client-urls", clientUrl(),
        "--listen-peer-urls", peer, "--initial-advertise-peer-urls", peer,
        "--initial-cluster", "ballast-test=" + peer,
        "--heartbeat-interval", "10", "--election-timeout", "100",
        "--log-level", "info"); // info: its "serving client requests" line says it is up
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    process = p;
    CountDownLatch serving = new CountDownLatch(1);
    Thread output = new Thread(() -> copyOutput(p, serving), "etcd-output");
    output.setDaemon(true);
    output.start();
    try {
      // no polling: the output says when etcd serves, or its end when the process exits
      if (serving.await(20, TimeUnit.SECONDS) && p.isAlive()) {
        return;
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      p.destroyForcibly();
      throw new IOException("interrupted while waiting for etcd", e);
    }
    if (!p.isAlive()) {
      throw new IOException("etcd exited with " + p.exitValue() + "; see " + log);
    }
    p.destroyForcibly();
    throw new IOException("etcd did not serve clients within 20 s; see " + log);
  }

  // Appends etcd's output to the log file; counts down once it serves clients (3.4's and 3.5's
  // wording) or its output ends (the process exited).
  private void copyOutput(Process p, CountDownLatch serving) {
    try (BufferedReader in = new BufferedReader(
            new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        Writer out = Files.newBufferedWriter(log, StandardCharsets.UTF_8,
            StandardOpenOption.CREATE, StandardOpenOption.APPEND)) {
      for (String line = in.readLine(); line != null; line = in.readLine()) {
        out.write(line);
        out.write('\n');
        out.flush();
        if (line.contains("serving insecure client requests on")
            || line.contains("serving client traffic insecurely")) {
          serving.countDown();
        }
      }
    } catch (IOException e) {
      // the process went away: its end below
    } finally {
      serving.countDown();
    }
  }

  private static String binary() throws IOException {
    for (String p : new String[] {"/usr/bin/etcd", "/usr/local/bin/etcd"}) {
      if (Files.isExecutable(Path.of(p))) {
        return p;
      }
    }
    throw new IOException("etcd not found (expected /usr/bin/etcd from Debian's etcd-server: "
        + "run scripts/install-test-deps.sh)");
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }
}
