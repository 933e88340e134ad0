package dev.ballast.netty.testing;

import dev.ballast.core.Endpoint;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;

/**
 * A loopback port that refuses every connection for as long as this is open: a socket bound to
 * it that never listens. A port freed by closing a server would not do: another socket may
 * take it meanwhile, and a connect to a free ephemeral port can pick that same port as its own
 * source and connect to itself (TCP simultaneous open).
 */
public final class RefusedPort implements AutoCloseable {

  private final Socket socket = new Socket();

  /** Binds an ephemeral port of 127.0.0.1. */
  public RefusedPort() throws IOException {
    socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
  }

  /** Returns the refusing endpoint, 127.0.0.1:port. */
  public Endpoint endpoint() {
    return Endpoint.of("127.0.0.1", socket.getLocalPort());
  }

  /** Frees the port. */
  @Override
  public void close() throws IOException {
    socket.close();
  }
}
