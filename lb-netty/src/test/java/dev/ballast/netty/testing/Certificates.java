package dev.ballast.netty.testing;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.util.Base64;
import java.util.Comparator;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A self-signed server certificate made at test time by the JDK's own {@code keytool} (no
 * network, no extra library): an EC P-256 key, valid for two days, naming the host names and IP
 * addresses given as its subject alternative names, written as PEM files (the certificate, and
 * the unencrypted PKCS#8 key) that nginx, Netty and {@code TlsConfig} all read. {@link #close()}
 * deletes them.
 */
public final class Certificates implements AutoCloseable {

  private static final char[] PASSWORD = "changeit".toCharArray();
  private static Certificates localhost; // guarded by the class

  private final Path dir;

  private Certificates(Path dir) {
    this.dir = dir;
  }

  /**
   * Returns the certificate for {@code localhost} only (not 127.0.0.1), made once per JVM
   * (keytool takes a second or more of CPU) and deleted when the JVM exits; do not close it.
   */
  public static synchronized Certificates localhost() throws IOException {
    if (localhost == null) {
      Certificates c = selfSigned("dns:localhost");
      Runtime.getRuntime().addShutdownHook(new Thread(() -> {
        try {
          c.close();
        } catch (IOException e) {
          // a temporary directory left behind
        }
      }));
      localhost = c;
    }
    return localhost;
  }

  /**
   * Makes a certificate for these subject alternative names, in keytool's form: {@code
   * dns:localhost}, {@code ip:127.0.0.1}.
   */
  public static Certificates selfSigned(String... names) throws IOException {
    Path dir = Files.createTempDirectory("ballast-tls");
    Path store = dir.resolve("server.p12");
    Path keytool = Path.of(System.getProperty("java.home"), "bin", "keytool");
    Process p = new ProcessBuilder(keytool.toString(), "-genkeypair", "-alias", "server",
        "-keyalg", "EC", "-groupname", "secp256r1", "-validity", "2",
        "-dname", "CN=ballast test server", "-ext", "SAN=" + String.join(",", names),
        "-keystore", store.toString(), "-storetype", "PKCS12",
        "-storepass", new String(PASSWORD))
        .redirectErrorStream(true).start();
    try {
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
        throw new IOException("keytool failed: " + out);
      }
      KeyStore ks = KeyStore.getInstance("PKCS12");
      try (InputStream in = Files.newInputStream(store)) {
        ks.load(in, PASSWORD);
      }
      Certificate cert = ks.getCertificate("server");
      PrivateKey key = (PrivateKey) ks.getKey("server", PASSWORD);
      Files.writeString(dir.resolve("cert.pem"), pem("CERTIFICATE", cert.getEncoded()));
      Files.writeString(dir.resolve("key.pem"), pem("PRIVATE KEY", key.getEncoded()));
      return new Certificates(dir);
    } catch (InterruptedException | GeneralSecurityException e) {
      throw new IOException("cannot make a certificate for " + String.join(",", names), e);
    }
  }

  private static String pem(String type, byte[] der) {
    return "-----BEGIN " + type + "-----\n"
        + Base64.getMimeEncoder(64, new byte[] {'\n'}).encodeToString(der)
        + "\n-----END " + type + "-----\n";
  }

  /** Returns the PEM file of the certificate (also what a client trusts). */
  public Path certificate() {
    return dir.resolve("cert.pem");
  }

  /** Returns the PEM file of the unencrypted PKCS#8 private key. */
  public Path privateKey() {
    return dir.resolve("key.pem");
  }

  /** Deletes the files. */
  @Override
  public void close() throws IOException {
    try (Stream<Path> files = Files.walk(dir)) {
      files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
    }
  }
}
