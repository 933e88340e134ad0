package dev.ballast.netty.health.internal;

import dev.ballast.core.Endpoint;
import dev.ballast.core.Health;
import dev.ballast.core.Node;
import dev.ballast.core.health.HealthProbe;
import dev.ballast.netty.internal.Transport;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.EventLoopGroup;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslHandler;
import io.netty.util.AttributeKey;
import io.netty.util.NetUtil;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.Future;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A check on a connection of its own: connects to the node's endpoint on the client's event loops
 * (a host name is resolved off them), does the TLS handshake when the client uses TLS, lets the
 * subclass ask its question, and closes the connection once the answer is in or the checker gives
 * up (the returned stop). Every way it can end reports once: no answer, a refused or reset
 * connection, a failed handshake are all failures.
 */
abstract class Probe implements HealthProbe<Object> {

  // one lookup at a time for every client's checks; the thread ends after 60 s idle
  private static final ThreadPoolExecutor RESOLVER = new ThreadPoolExecutor(1, 1, 60,
      TimeUnit.SECONDS, new LinkedBlockingQueue<>(),
      new DefaultThreadFactory("ballast-health-resolver", true));
  private static final AttributeKey<Check> CHECK = AttributeKey.valueOf(Probe.class, "check");

  static {
    RESOLVER.allowCoreThreadTimeOut(true);
  }

  private final Bootstrap bootstrap;
  private final SslContext tls;

  Probe(EventLoopGroup group, int connectTimeoutMillis, SslContext tls) {
    this.tls = tls;
    this.bootstrap = Transport.configure(new Bootstrap(), group, connectTimeoutMillis)
        .handler(new ChannelInitializer<Channel>() {
          @Override
          protected void initChannel(Channel ch) {
            Check c = ch.attr(CHECK).get();
            if (tls != null) {
              ch.pipeline().addLast(tls.newHandler(ch.alloc(), c.endpoint.host(),
                  c.endpoint.port()));
            }
            init(ch.pipeline(), c);
          }
        });
  }

  /** Adds the protocol's handlers for one check's connection (after TLS, if any). */
  abstract void init(ChannelPipeline pipeline, Check check);

  /** The connection is up (handshake done): asks the question; the answer ends the check. */
  abstract void ask(Channel channel, Check check);

  @Override
  public Runnable check(Node<Object> node, Result result) {
    Check c = new Check(node.endpoint(), result);
    byte[] ip = NetUtil.createByteArrayFromIpAddressString(c.endpoint.host());
    if (ip != null) {
      connect(c, literal(ip, c.endpoint.port()));
    } else {
      Executor off = RESOLVER;
      CompletableFuture.supplyAsync(() -> new InetSocketAddress(c.endpoint.host(),
          c.endpoint.port()), off).whenComplete((a, e) -> {
            if (e != null || a.isUnresolved()) {
              c.end(Health.UNHEALTHY);
            } else {
              connect(c, a);
            }
          });
    }
    return c;
  }

  private void connect(Check c, InetSocketAddress address) {
    if (c.ended.get()) {
      return;
    }
    ChannelFuture f;
    try {
      f = bootstrap.clone().attr(CHECK, c).connect(address);
    } catch (RuntimeException e) { // the event loops are shut down
      c.end(Health.UNHEALTHY);
      return;
    }
    c.channel = f.channel();
    f.addListener(x -> {
      if (!f.isSuccess()) {
        c.end(Health.UNHEALTHY);
        return;
      }
      Channel ch = f.channel();
      ch.closeFuture().addListener(y -> c.end(Health.UNHEALTHY)); // unless it ended before
      if (c.ended.get()) {
        ch.close();
        return;
      }
      SslHandler ssl = ch.pipeline().get(SslHandler.class);
      Future<?> handshake = ssl == null ? ch.newSucceededFuture() : ssl.handshakeFuture();
      handshake.addListener(h -> {
        if (h.isSuccess()) {
          ask(ch, c);
        } else {
          c.end(Health.UNHEALTHY);
        }
      });
    });
  }

  private static InetSocketAddress literal(byte[] ip, int port) {
    try {
      return new InetSocketAddress(InetAddress.getByAddress(ip), port); // no lookup
    } catch (UnknownHostException e) {
      throw new IllegalArgumentException("address bytes: " + ip.length, e);
    }
  }

  /** One check: reports once and closes its connection; its {@link #run()} is the stop. */
  static final class Check implements Runnable {
    final Endpoint endpoint;
    private final Result result;
    final AtomicBoolean ended = new AtomicBoolean();
    volatile Channel channel;

    Check(Endpoint endpoint, Result result) {
      this.endpoint = endpoint;
      this.result = result;
    }

    /** Ends the check with this verdict, if it has not ended; closes its connection. */
    void end(Health verdict) {
      if (ended.compareAndSet(false, true)) {
        close();
        result.report(verdict);
      }
    }

    @Override
    public void run() { // the checker gave up: no report, just the connection closed
      ended.set(true);
      close();
    }

    private void close() {
      Channel ch = channel;
      if (ch != null) {
        ch.close();
      }
    }
  }
}
