package dev.ballast.netty;

import io.netty.handler.codec.http2.Http2SecurityUtil;
import io.netty.handler.ssl.ApplicationProtocolConfig;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import io.netty.handler.ssl.SupportedCipherSuiteFilter;
import io.netty.handler.ssl.util.InsecureTrustManagerFactory;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLException;
import javax.net.ssl.TrustManagerFactory;

/**
 * The TLS settings of a client's connections ({@link BallastClient.Builder#tls}), for the framed
 * protocol, HTTP/1.1 and HTTP/2 alike. Each connection checks the server's certificate against
 * the trust material and against the endpoint's host as written (a host name, or an IP literal
 * in the certificate's IP addresses: host-name verification by RFC 2818's rules), and sends that
 * host name as SNI; it may present a client certificate. Immutable. Defaults: the JDK's trusted
 * certificate authorities, no client certificate, the JDK's TLS provider and protocol versions.
 *
 * <pre>{@code
 * TlsConfig tls = TlsConfig.builder()
 *     .trustCertificates(Path.of("/etc/ballast/ca.pem"))                 // else the JDK's CAs
 *     .keyPair(Path.of("/etc/ballast/client.pem"), Path.of("/etc/ballast/client.key"))
 *     .build();
 * }</pre>
 */
public final class TlsConfig {

  private static final TlsConfig DEFAULTS = builder().build();

  private final File trustFile;
  private final TrustManagerFactory trustManager;
  private final File certChainFile;
  private final File keyFile;
  private final KeyManagerFactory keyManager;
  private final boolean insecure;
  private final SslProvider provider;

  private TlsConfig(Builder b) {
    this.trustFile = b.trustFile;
    this.trustManager = b.trustManager;
    this.certChainFile = b.certChainFile;
    this.keyFile = b.keyFile;
    this.keyManager = b.keyManager;
    this.insecure = b.insecure;
    this.provider = b.provider;
  }

  /** Returns the defaults: the JDK's certificate authorities, no client certificate. */
  public static TlsConfig defaults() {
    return DEFAULTS;
  }

  /**
   * Returns settings that trust any certificate for any host name: for tests only, never in
   * production (anyone on the path could read and change every request).
   */
  public static TlsConfig insecureForTestsOnly() {
    Builder b = builder();
    b.insecure = true;
    return b.build();
  }

  /** Returns a builder holding the defaults. */
  public static Builder builder() {
    return new Builder();
  }

  /** Returns whether these settings skip every check of the server (for tests only). */
  public boolean isInsecure() {
    return insecure;
  }

  /**
   * Builds Netty's client context, offering these ALPN protocols (none when empty); HTTP/2 gets
   * the cipher suites RFC 9113 allows.
   *
   * @throws IllegalArgumentException if the trust or key material cannot be read
   */
  SslContext context(List<String> alpn) {
    SslContextBuilder b = SslContextBuilder.forClient().sslProvider(provider)
        .endpointIdentificationAlgorithm(insecure ? null : "HTTPS");
    if (insecure) {
      b.trustManager(InsecureTrustManagerFactory.INSTANCE);
    } else if (trustManager != null) {
      b.trustManager(trustManager);
    } else if (trustFile != null) {
      b.trustManager(trustFile);
    }
    if (keyManager != null) {
      b.keyManager(keyManager);
    } else if (certChainFile != null) {
      b.keyManager(certChainFile, keyFile);
    }
    if (!alpn.isEmpty()) {
      b.applicationProtocolConfig(new ApplicationProtocolConfig(
          ApplicationProtocolConfig.Protocol.ALPN,
          ApplicationProtocolConfig.SelectorFailureBehavior.NO_ADVERTISE,
          ApplicationProtocolConfig.SelectedListenerFailureBehavior.ACCEPT, alpn));
      if (alpn.contains("h2")) {
        b.ciphers(Http2SecurityUtil.CIPHERS, SupportedCipherSuiteFilter.INSTANCE);
      }
    }
    try {
      return b.build();
    } catch (SSLException | IllegalArgumentException e) {
      throw new IllegalArgumentException("tls: cannot build the TLS context from " + this
          + ": " + e.getMessage(), e);
    }
  }

  @Override
  public String toString() {
    return "TlsConfig{" + (insecure ? "insecure: trusts anything"
        : "trust=" + (trustManager != null ? trustManager.getAlgorithm() + " trust manager"
            : trustFile != null ? trustFile : "the JDK's CAs")
            + ", client certificate=" + (keyManager != null ? "a key manager"
                : certChainFile != null ? certChainFile : "none"))
        + ", provider=" + provider + "}";
  }

  /** Builds a {@link TlsConfig}; every setter checks its argument. */
  public static final class Builder {
    private File trustFile;
    private TrustManagerFactory trustManager;
    private File certChainFile;
    private File keyFile;
    private KeyManagerFactory keyManager;
    private boolean insecure;
    private SslProvider provider = SslProvider.JDK;

    private Builder() {}

    /**
     * Trusts the X.509 certificates of a PEM file (certificate authorities, or the servers' own
     * certificates) instead of the JDK's certificate authorities.
     *
     * @throws IllegalArgumentException if the file cannot be read
     */
    public Builder trustCertificates(Path pemFile) {
      this.trustFile = readable("trustCertificates", pemFile);
      this.trustManager = null;
      return this;
    }

    /** Trusts what this trust manager factory trusts, instead of the JDK's authorities. */
    public Builder trustManager(TrustManagerFactory factory) {
      this.trustManager = Objects.requireNonNull(factory, "factory");
      this.trustFile = null;
      return this;
    }

    /**
     * Presents a client certificate (mutual TLS): a PEM certificate chain and its PEM PKCS#8
     * private key (unencrypted); default none.
     *
     * @throws IllegalArgumentException if a file cannot be read
     */
    public Builder keyPair(Path certChainPem, Path privateKeyPem) {
      this.certChainFile = readable("keyPair certChain", certChainPem);
      this.keyFile = readable("keyPair privateKey", privateKeyPem);
      this.keyManager = null;
      return this;
    }

    /** Presents the client certificate this key manager factory chooses; default none. */
    public Builder keyManager(KeyManagerFactory factory) {
      this.keyManager = Objects.requireNonNull(factory, "factory");
      this.certChainFile = null;
      this.keyFile = null;
      return this;
    }

    /**
     * Sets the TLS implementation; default {@link SslProvider#JDK} ({@code OPENSSL} needs
     * netty-tcnative on the class path).
     */
    public Builder provider(SslProvider provider) {
      this.provider = Objects.requireNonNull(provider, "provider");
      return this;
    }

    /** Returns the settings. */
    public TlsConfig build() {
      return new TlsConfig(this);
    }

    private static File readable(String what, Path file) {
      Objects.requireNonNull(file, what);
      if (!Files.isRegularFile(file) || !Files.isReadable(file)) {
        throw new IllegalArgumentException(what + ": " + file
            + " (expected: a readable PEM file)");
      }
      return file.toFile();
    }
  }
}
