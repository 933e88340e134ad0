package dev.ballast.netty.testing;

import dev.ballast.core.Endpoint;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * A real nginx on 127.0.0.1, started from /usr/sbin/nginx (installed by
 * scripts/install-test-deps.sh) with a generated configuration in a temporary directory
 * (prefix, pid, error log, an access log that {@link #requests()} counts, daemon off), answering
 * every request with a fixed status, headers and body; {@link #close()} stops it and deletes the
 * directory. A second listener of its own serves nginx's {@code stub_status}, so that {@link
 * #requests()} can wait for the log to hold every request nginx has received (nginx writes a
 * request's log line just after sending its answer).
 */
public final class Nginx implements AutoCloseable {

  /** Where the tests expect nginx. */
  public static final Path BINARY = Path.of("/usr/sbin/nginx");

  // stub_status's counts line: accepted and handled connections, requests
  private static final Pattern STUB_COUNTS =
      Pattern.compile("\\n\\s*\\d+\\s+\\d+\\s+(\\d+)\\s*\\n");

  private final Path dir;
  private final int port;
  private final int statusPort;
  private long statusQueries; // guarded by this: nginx counts them among its requests
  private final Process process;

  private Nginx(Builder b) throws IOException {
    if (!Files.isExecutable(BINARY)) {
      throw new IllegalStateException(BINARY + " not found (expected: nginx installed by "
          + "scripts/install-test-deps.sh, e.g. apt-get install nginx)");
    }
    dir = Files.createTempDirectory("ballast-nginx");
    port = freePort();
    int status = freePort();
    while (status == port) { // the kernel may give a just-closed port again
      status = freePort();
    }
    statusPort = status;
    String conf = String.join("\n",
        "daemon off;",
        "worker_processes 1;",
        "pid " + dir.resolve("nginx.pid") + ";",
        "error_log " + dir.resolve("error.log") + " warn;",
        "events { worker_connections 256; }",
        "http {",
        "  access_log " + dir.resolve("access.log") + ";",
        "  client_body_temp_path " + dir.resolve("body") + ";",
        "  proxy_temp_path " + dir.resolve("proxy") + ";",
        "  fastcgi_temp_path " + dir.resolve("fastcgi") + ";",
        "  uwsgi_temp_path " + dir.resolve("uwsgi") + ";",
        "  scgi_temp_path " + dir.resolve("scgi") + ";",
        "  server {",
        "    listen 127.0.0.1:" + port + (b.certificates != null ? " ssl" : "")
            + (b.http2 ? " http2" : "") + ";",
        b.certificates == null ? "" : "    ssl_certificate " + b.certificates.certificate()
            + ";\n    ssl_certificate_key " + b.certificates.privateKey() + ";",
        b.serverLines.toString(),
        "    location / {",
        "      default_type text/plain;",
        b.headers.toString(),
        b.upstream != null ? "      proxy_pass http://" + b.upstream + ";"
            : "      return " + b.status + " \"" + b.body + "\";",
        "    }",
        "  }",
        "  server {",
        "    listen 127.0.0.1:" + statusPort + ";",
        "    access_log off;",
        "    location / { stub_status; }",
        "  }",
        "}", "");
    Path confFile = dir.resolve("nginx.conf");
    Files.writeString(confFile, conf, StandardCharsets.UTF_8);
    process = new ProcessBuilder(BINARY.toString(), "-p", dir.toString(), "-c",
        confFile.toString(), "-e", dir.resolve("error.log").toString())
        .redirectErrorStream(true)
        .redirectOutput(dir.resolve("stdout.log").toFile())
        .start();
    Await.until(Duration.ofSeconds(10), this::diagnostics, this::accepting);
  }

  /** Starts nginx on a free loopback port, answering 200 and {@code body} to every request. */
  public static Nginx start(String body) throws IOException {
    return builder().body(body).start();
  }

  /** Returns a builder: HTTP/1.1 over TCP, answering 200 and an empty body. */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Starts nginx answering {@code status} and {@code body} to every request, with the headers
   * given as name, value pairs (e.g. {@code "Retry-After", "3600"}).
   */
  public static Nginx start(int status, String body, String... headers) throws IOException {
    if (headers.length % 2 != 0) {
      throw new IllegalArgumentException("headers: " + headers.length
          + " strings (expected: name, value pairs)");
    }
    Builder b = builder().status(status).body(body);
    for (int i = 0; i < headers.length; i += 2) {
      b.header(headers[i], headers[i + 1]);
    }
    return b.start();
  }

  /**
   * Returns how many requests nginx has answered (lines of its access log), once the log holds
   * every request nginx has received, or after 5 s if some request is still unanswered then.
   */
  public synchronized long requests() throws IOException {
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    while (true) {
      long logged = accessLog().size();
      if (logged >= received() || System.nanoTime() - end > 0) {
        return logged;
      }
      LockSupport.parkNanos(1_000_000);
    }
  }

  // the requests nginx has received on the main listener: stub_status's total less its own
  private long received() throws IOException {
    statusQueries++;
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress("127.0.0.1", statusPort), 5_000);
      s.setSoTimeout(5_000);
      s.getOutputStream().write(
          "GET / HTTP/1.0\r\nHost: status\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
      String answer = new String(s.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
      // "... server accepts handled requests\n 5 5 12\n..."
      Matcher m = STUB_COUNTS.matcher(answer);
      if (!m.find()) {
        throw new IOException("nginx stub_status: unexpected answer " + answer);
      }
      return Long.parseLong(m.group(1)) - statusQueries;
    }
  }

  /**
   * Returns the lines of nginx's access log (the "combined" format: the request line in quotes,
   * then the status), one per request answered.
   */
  public List<String> accessLog() throws IOException {
    Path log = dir.resolve("access.log");
    if (!Files.exists(log)) {
      return List.of();
    }
    try (Stream<String> lines = Files.lines(log)) {
      return lines.toList();
    }
  }

  /** Returns the endpoint {@code 127.0.0.1:port}. */
  public Endpoint endpoint() {
    return Endpoint.of("127.0.0.1", port);
  }

  private boolean accepting() {
    if (!process.isAlive()) {
      throw new IllegalStateException("nginx exited: " + diagnostics());
    }
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress("127.0.0.1", port), 200);
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  private String diagnostics() {
    try {
      Path log = dir.resolve("error.log");
      return "nginx on port " + port + ": " + (Files.exists(log) ? Files.readString(log) : "")
          + Files.readString(dir.resolve("stdout.log"));
    } catch (IOException e) {
      return e.toString();
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  /** The settings of an nginx to start. */
  public static final class Builder {
    private int status = 200;
    private String body = "";
    private final StringBuilder headers = new StringBuilder();
    private final StringBuilder serverLines = new StringBuilder();
    private boolean http2;
    private Certificates certificates;
    private String upstream;

    private Builder() {}

    /** Answers with this status; default 200. */
    public Builder status(int status) {
      this.status = status;
      return this;
    }

    /** Answers with this body (nginx's {@code return} syntax: $http_host works); default "". */
    public Builder body(String body) {
      this.body = body;
      return this;
    }

    /** Adds a response header field (its value may hold quotes and backslashes). */
    public Builder header(String name, String value) {
      String quoted = value.replace("\\", "\\\\").replace("\"", "\\\"");
      headers.append("      add_header ").append(name).append(" \"").append(quoted)
          .append("\" always;\n");
      return this;
    }

    /** Speaks HTTP/2: h2c with prior knowledge, or h2 by ALPN with {@link #tls}. */
    public Builder http2() {
      this.http2 = true;
      return this;
    }

    /** Speaks TLS with this certificate. */
    public Builder tls(Certificates certificates) {
      this.certificates = certificates;
      return this;
    }

    /** Adds a directive to the server block, e.g. {@code "keepalive_requests 50;"}. */
    public Builder directive(String line) {
      serverLines.append("    ").append(line).append('\n');
      return this;
    }

    /** Passes every request to this {@code host:port} (HTTP/1.0) instead of answering. */
    public Builder proxyTo(String hostPort) {
      this.upstream = hostPort;
      return this;
    }

    /** Starts nginx on a free loopback port. */
    public Nginx start() throws IOException {
      return new Nginx(this);
    }
  }

  /** Stops nginx (TERM, then KILL after 10 s) and deletes its directory. */
  @Override
  public void close() throws IOException, InterruptedException {
    if (!Files.exists(dir)) {
      return;
    }
    process.destroy();
    if (!process.waitFor(10, TimeUnit.SECONDS)) {
      process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    }
    try (Stream<Path> files = Files.walk(dir)) {
      files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    }
  }
}
