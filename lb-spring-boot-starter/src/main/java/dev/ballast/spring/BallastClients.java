package dev.ballast.spring;

import dev.ballast.netty.BallastClient;
import dev.ballast.netty.ClientOptions;
import dev.ballast.netty.http.HttpRequest;
import dev.ballast.netty.http.HttpResponse;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * The named lb-netty clients configured under {@code ballast.clients.<name>.}, built at start-up
 * and closed with the application context. A client with {@code protocol=grpc} only feeds gRPC
 * channels and has no lb-netty client here.
 *
 * <pre>{@code
 * BallastClient<byte[], byte[]> orders = clients.framed("orders");
 * byte[] reply = orders.call(request).join();
 * // with subset.selectors=zone: only the endpoints labelled zone=b
 * orders.call(request, CallOptions.DEFAULT.withLabels(Map.of("zone", "b")));
 * }</pre>
 */
public final class BallastClients implements AutoCloseable {

  private final Map<String, BallastClient<?, ?>> clients;
  private final Map<String, ClientSettings.Protocol> protocols;
  private final Set<String> grpcOnly;

  private BallastClients(Map<String, BallastClient<?, ?>> clients,
      Map<String, ClientSettings.Protocol> protocols, Set<String> grpcOnly) {
    this.clients = Collections.unmodifiableMap(clients);
    this.protocols = Collections.unmodifiableMap(protocols);
    this.grpcOnly = Collections.unmodifiableSet(grpcOnly);
  }

  /**
   * Builds one client per configured name but those with {@code protocol=grpc}, applying the
   * settings and then the customizers in the given order. Clients open connections on demand,
   * so no endpoint needs to be up.
   */
  public static BallastClients create(
      BallastSettings settings, List<? extends BallastClientCustomizer> customizers) {
    Objects.requireNonNull(settings, "settings");
    Objects.requireNonNull(customizers, "customizers");
    Map<String, BallastClient<?, ?>> clients = new LinkedHashMap<>();
    Map<String, ClientSettings.Protocol> protocols = new LinkedHashMap<>();
    Set<String> grpcOnly = new LinkedHashSet<>();
    try {
      for (ClientSettings s : settings.clients().values()) {
        if (s.protocol() == ClientSettings.Protocol.GRPC) {
          grpcOnly.add(s.name());
          continue;
        }
        BallastClient.Builder<?, ?> builder = switch (s.protocol()) {
          case HTTP -> BallastClient.http();
          case HTTP2 -> BallastClient.http2();
          default -> BallastClient.framed();
        };
        apply(s, builder);
        for (BallastClientCustomizer c : customizers) {
          c.customize(s, builder);
        }
        clients.put(s.name(), builder.build());
        protocols.put(s.name(), s.protocol());
      }
    } catch (RuntimeException e) {
      new BallastClients(clients, protocols, grpcOnly).close();
      throw e;
    }
    return new BallastClients(clients, protocols, grpcOnly);
  }

  /** Applies every option to a builder, through lb-netty's own codec. */
  static void apply(ClientSettings s, BallastClient.Builder<?, ?> b) {
    ClientOptions.CLIENT.apply(b.name(s.name()), s.clientOptions());
    if (s.source() != null) {
      b.source(s.source());
    }
  }

  /**
   * Returns the client of a name configured with {@code protocol=framed} (the default).
   *
   * @throws NoSuchElementException if no client has the name
   * @throws IllegalStateException if the client speaks another protocol
   */
  @SuppressWarnings("unchecked")
  public BallastClient<byte[], byte[]> framed(String name) {
    return (BallastClient<byte[], byte[]>) typed(name, ClientSettings.Protocol.FRAMED);
  }

  /**
   * Returns the client of a name configured with {@code protocol=http} or {@code http2}.
   *
   * @throws NoSuchElementException if no client has the name
   * @throws IllegalStateException if the client speaks another protocol
   */
  @SuppressWarnings("unchecked")
  public BallastClient<HttpRequest, HttpResponse> http(String name) {
    ClientSettings.Protocol p = protocols.get(name);
    return (BallastClient<HttpRequest, HttpResponse>) typed(name,
        p == ClientSettings.Protocol.HTTP2 ? p : ClientSettings.Protocol.HTTP);
  }

  /**
   * Returns the client of a name, whatever its protocol.
   *
   * @throws NoSuchElementException if no lb-netty client has the name (a {@code protocol=grpc}
   *     client has none)
   */
  public BallastClient<?, ?> get(String name) {
    BallastClient<?, ?> c = clients.get(name);
    if (c == null && grpcOnly.contains(name)) {
      throw new NoSuchElementException("client: " + name + " has protocol=grpc: it feeds gRPC "
          + "channels targeting ballast://" + name + " and has no lb-netty client (expected: "
          + "protocol=framed or http to call it through BallastClients)");
    }
    if (c == null) {
      throw new NoSuchElementException("client: " + name + " (expected: one of "
          + clients.keySet() + ", configured under ballast.clients.<name>)");
    }
    return c;
  }

  /** Returns the clients with {@code protocol=http}, by name. */
  Map<String, BallastClient<HttpRequest, HttpResponse>> httpClients() {
    Map<String, BallastClient<HttpRequest, HttpResponse>> http = new LinkedHashMap<>();
    for (String name : clients.keySet()) {
      ClientSettings.Protocol p = protocols.get(name);
      if (p == ClientSettings.Protocol.HTTP || p == ClientSettings.Protocol.HTTP2) {
        http.put(name, http(name));
      }
    }
    return http;
  }

  /** Returns the names of the lb-netty clients, in configuration order. */
  public Set<String> names() {
    return clients.keySet();
  }

  private BallastClient<?, ?> typed(String name, ClientSettings.Protocol wanted) {
    BallastClient<?, ?> c = get(name);
    ClientSettings.Protocol actual = protocols.get(name);
    if (actual != wanted) {
      String lower = wanted.name().toLowerCase(Locale.ROOT);
      throw new IllegalStateException("client " + name + " speaks "
          + actual.name().toLowerCase(Locale.ROOT) + " (expected: ballast.clients."
          + name + ".protocol=" + lower + " to use it as a " + lower + " client)");
    }
    return c;
  }

  /**
   * Closes every client at once, each with its grace period, and waits for them: new calls fail
   * at once, calls in flight get the grace period to finish.
   */
  @Override
  public void close() {
    List<CompletableFuture<Void>> closing = new ArrayList<>();
    for (BallastClient<?, ?> c : clients.values()) {
      closing.add(CompletableFuture.runAsync(c::close));
    }
    for (CompletableFuture<Void> f : closing) {
      f.join();
    }
  }

  @Override
  public String toString() {
    return "BallastClients" + clients.keySet();
  }
}
