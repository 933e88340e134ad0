package dev.ballast.netty.internal;

import dev.ballast.core.Endpoint;
import dev.ballast.core.Ticker;
import dev.ballast.netty.pool.PoolConfig;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ConnectTimeoutException;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslHandler;
import io.netty.util.AttributeKey;
import io.netty.util.NetUtil;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.Promise;
import io.netty.util.concurrent.ScheduledFuture;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.channels.ClosedChannelException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BiConsumer;
import java.util.random.RandomGenerator;
import javax.net.ssl.SSLException;

/**
 * Opens the connections of one endpoint's pool: a Netty bootstrap with the protocol's pipeline
 * (behind a TLS handler when the protocol has a TLS context), to the endpoint's address resolved
 * off the event loops. An IP literal needs no lookup; a host name is resolved by the JDK (which
 * blocks, and caches for {@code networkaddress.cache.ttl}) on a small shared pool of daemon
 * threads, again for every connect, so that connections follow the name's records and no event
 * loop ever waits for DNS. A connection is handed over once it can take requests: connected,
 * its TLS handshake done (the server's certificate checked against the endpoint's host name as
 * written, which is also sent as SNI) and, for HTTP/2, the server's settings heard; the connect
 * timeout bounds the TCP connect, and again what follows it.
 */
final class Connector<Req, Rep> {

  // At most 4 lookups at once for the whole process; idle threads end after 60 s.
  private static final ThreadPoolExecutor RESOLVER = new ThreadPoolExecutor(4, 4, 60,
      TimeUnit.SECONDS, new LinkedBlockingQueue<>(),
      new DefaultThreadFactory("ballast-resolver", true));

  static {
    RESOLVER.allowCoreThreadTimeOut(true);
  }

  private final Endpoint endpoint;
  private final PoolConfig config;
  private final Bootstrap bootstrap;
  private final LoopSpread loops;
  private final Ticker ticker;
  private final RandomGenerator random;
  private final InetSocketAddress literal; // null for a host name
  private final long readyTimeoutNanos;
  // where the latest connection being opened got to, for the pool's timeout message
  private volatile String stage = "TCP connect";

  Connector(Endpoint endpoint, PoolConfig config, Protocol<Req, Rep> protocol,
      LoopSpread loops, Ticker ticker, RandomGenerator random) {
    this.endpoint = endpoint;
    this.loops = loops;
    this.config = config;
    this.ticker = ticker;
    this.random = random;
    byte[] ip = NetUtil.createByteArrayFromIpAddressString(endpoint.host());
    this.literal = ip == null ? null : new InetSocketAddress(address(ip), endpoint.port());
    this.readyTimeoutNanos = config.connectTimeout().toNanos();
    int timeoutMillis = (int) Math.min(Integer.MAX_VALUE, config.connectTimeout().toMillis());
    SslContext tls = protocol.tls();
    this.bootstrap = Transport.configure(new Bootstrap(), loops.group(), timeoutMillis)
        .handler(new ChannelInitializer<Channel>() {
          @Override
          protected void initChannel(Channel ch) {
            Transport.keepQuickAck(ch); // first: it sees the socket's reads, TLS or not
            if (tls != null) {
              SslHandler h = tls.newHandler(ch.alloc(), endpoint.host(), endpoint.port());
              h.setHandshakeTimeoutMillis(timeoutMillis);
              ch.attr(TLS).set(h); // still there when a close has emptied the pipeline
              ch.pipeline().addLast(h);
            }
            protocol.init(ch.pipeline(), endpoint);
          }
        });
  }

  private static InetAddress address(byte[] ip) {
    try {
      return InetAddress.getByAddress(ip); // no lookup: the bytes are the address
    } catch (java.net.UnknownHostException e) {
      throw new IllegalArgumentException("address bytes: " + ip.length, e);
    }
  }

  /**
   * Opens one connection; {@code done} hears it (with its lifetime set), or the failure, exactly
   * once, on an event loop or a resolver thread, whatever happens to the channel meanwhile (a
   * connection the server resets at once may be closed, its pipeline emptied, before the connect
   * listener runs).
   */
  void open(BiConsumer<PooledConnection<Req, Rep>, Throwable> done) {
    int loop = loops.forNewConnection(); // chosen on the caller's thread (not the resolver's)
    Once<Req, Rep> once = new Once<>(done, loops, loop);
    try {
      if (literal != null) {
        connect(literal, loop, once);
        return;
      }
      CompletableFuture.supplyAsync(
              () -> new InetSocketAddress(endpoint.host(), endpoint.port()), RESOLVER)
          .whenComplete((address, e) -> {
            if (e != null) {
              once.accept(null, e);
            } else if (address.isUnresolved()) {
              once.accept(null, new java.net.UnknownHostException(endpoint.host()));
            } else {
              try {
                connect(address, loop, once);
              } catch (Throwable t) { // the event loops are shut down, say
                once.accept(null, t);
              }
            }
          });
    } catch (Throwable t) {
      once.accept(null, t);
    }
  }

  private void connect(InetSocketAddress address, int loop, Once<Req, Rep> done) {
    stage = "TCP connect";
    ChannelFuture f = bootstrap.clone(loops.loop(loop)).connect(address);
    f.addListener(x -> connected(f, done));
  }

  /** The connect listener: whatever throws, {@code done} hears of it and the channel closes. */
  void connected(ChannelFuture f, BiConsumer<PooledConnection<Req, Rep>, Throwable> done) {
    Once<Req, Rep> once = done instanceof Once<Req, Rep> o ? o : new Once<>(done);
    try {
      if (f.isSuccess()) {
        whenReady(f.channel(), once);
      } else {
        once.accept(null, f.cause());
      }
    } catch (Throwable t) {
      f.channel().close();
      once.accept(null, t);
    }
  }

  /** On the channel's event loop: hands the connection over once it can take requests. */
  @SuppressWarnings("unchecked")
  private void whenReady(Channel ch, Once<Req, Rep> done) {
    Dispatcher<Req, Rep> d = ch.pipeline().get(Dispatcher.class);
    SslHandler ssl = ch.attr(TLS).get();
    if (d == null || !ch.isActive()) {
      // closed before this listener ran, its handlers gone: a TLS handshake that had begun and
      // failed (a wrong host name, a server not speaking TLS) says so; else the server reset it
      ch.close();
      Future<?> handshake = ssl == null ? null : ssl.handshakeFuture();
      if (handshake != null && !handshake.isDone()) {
        // closed, but the handshake hears of it only when the close reaches its handler
        handshake.addListener(h -> closedEarly(ssl, h, done));
        return;
      }
      closedEarly(ssl, handshake, done);
      return;
    }
    if (ssl == null && d.ready(ch).isSuccess()) {
      handOver(ch, d, done);
      return;
    }
    stage = step(ssl);
    Promise<Void> ready = ch.eventLoop().newPromise();
    ScheduledFuture<?> timer = ch.eventLoop().schedule(() -> ready.tryFailure(
            new ConnectTimeoutException(step(ssl) + " not done within the connect timeout "
                + config.connectTimeout())),
        readyTimeoutNanos, TimeUnit.NANOSECONDS);
    Future<?> handshake = ssl == null ? ch.newSucceededFuture() : ssl.handshakeFuture();
    handshake.addListener(h -> {
      if (!h.isSuccess()) {
        ready.tryFailure(h.cause());
        return;
      }
      Future<?> setup = d.ready(ch);
      setup.addListener(r -> {
        if (r.isSuccess()) {
          ready.trySuccess(null);
        } else {
          ready.tryFailure(r.cause());
        }
      });
    });
    ready.addListener(r -> {
      timer.cancel(false);
      if (r.isSuccess() && ch.isActive()) {
        handOver(ch, d, done);
      } else {
        ch.close();
        done.accept(null, r.isSuccess() ? new ConnectException(step(ssl)
            + ": connection closed by the server") : notReady(ssl, r.cause()));
      }
    });
  }

  private static String step(SslHandler ssl) {
    return ssl != null ? "TLS handshake" : "protocol setup";
  }

  // the channel's TLS handler, kept beside the pipeline that a close empties
  static final AttributeKey<SslHandler> TLS =
      AttributeKey.valueOf(Connector.class, "tls");

  /** Reports a connection closed before it was ready: a failed TLS handshake, else a reset. */
  private static void closedEarly(SslHandler ssl, Future<?> handshake,
      BiConsumer<?, Throwable> done) {
    boolean tlsFailed = handshake != null && handshake.isDone() && !handshake.isSuccess();
    done.accept(null, tlsFailed ? notReady(ssl, handshake.cause()) : new ConnectException(
        "connection closed by the server as soon as it was accepted (reset during connect)"));
  }

  /** Says what failed when a closed channel is all the handshake or set-up reports. */
  private static Throwable notReady(SslHandler ssl, Throwable cause) {
    if (ssl != null && cause instanceof ClosedChannelException) {
      return new SSLException("connection closed by the server during the TLS handshake (is "
          + "the server not speaking TLS?)", cause);
    }
    return cause;
  }

  private void handOver(Channel ch, Dispatcher<Req, Rep> d,
      BiConsumer<PooledConnection<Req, Rep>, Throwable> done) {
    long now = ticker.nanoTime();
    done.accept(new PooledConnection<>(ch, d, now, expiry(now),
        loops.indexOf(ch.eventLoop())), null);
  }

  private long expiry(long now) {
    long life = config.maxLifetime().toNanos();
    if (life <= 0) {
      return Long.MAX_VALUE;
    }
    double jitter = config.lifetimeJitter() * random.nextDouble();
    return now + (long) (life * (1 - jitter));
  }

  /** Returns where the latest connection being opened got to: TCP connect, TLS handshake... */
  String stage() {
    return stage;
  }

  /**
   * Passes on the first outcome only, so that a failure after a hand-over is not a second; with
   * it, the opening leaves its loop's load.
   */
  static final class Once<Req, Rep> extends
      AtomicReference<BiConsumer<PooledConnection<Req, Rep>, Throwable>>
      implements BiConsumer<PooledConnection<Req, Rep>, Throwable> {

    private final LoopSpread loops; // null: no opening counted
    private final int loop;

    Once(BiConsumer<PooledConnection<Req, Rep>, Throwable> done) {
      this(done, null, LoopSpread.NONE);
    }

    Once(BiConsumer<PooledConnection<Req, Rep>, Throwable> done, LoopSpread loops, int loop) {
      super(done);
      this.loops = loops;
      this.loop = loop;
    }

    @Override
    public void accept(PooledConnection<Req, Rep> c, Throwable t) {
      BiConsumer<PooledConnection<Req, Rep>, Throwable> d = getAndSet(null);
      if (d != null) {
        if (loops != null) {
          loops.add(loop, -1);
        }
        d.accept(c, t);
      } else if (c != null) {
        c.channel.close(); // nobody takes it
      }
    }
  }
}
