package dev.ballast.discovery.dns;

import dev.ballast.core.Endpoint;
import dev.ballast.core.source.EndpointSource;
import io.netty.buffer.ByteBuf;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioDatagramChannel;
import io.netty.handler.codec.dns.DefaultDnsQuestion;
import io.netty.handler.codec.dns.DnsRawRecord;
import io.netty.handler.codec.dns.DnsRecord;
import io.netty.handler.codec.dns.DnsRecordType;
import io.netty.resolver.dns.DnsNameResolver;
import io.netty.resolver.dns.DnsNameResolverBuilder;
import io.netty.resolver.dns.DnsServerAddressStreamProviders;
import io.netty.resolver.dns.NoopDnsCache;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.ScheduledFuture;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * A service's endpoints from DNS, re-resolved: A/AAAA records of a name with a fixed port
 * ({@link #forName}), or SRV records ({@link #forSrv}, RFC 2782) giving each target's port and
 * weight (weight 0 counts as 1; only the lowest priority is used, higher ones being backups),
 * each target resolved to its addresses.
 *
 * <p>Resolves at start, then every {@linkplain Builder#period period} (30 s by default), and
 * early on {@link #refresh()} (a client calls it when connections fail), but at most once per
 * {@linkplain Builder#minRefreshInterval minimum interval} (1 s). Each successful resolution
 * pushes the whole set; a failed one (timeout, no such name, no records) is reported as a
 * failure, so the feed keeps the last good set. Resolution runs on a Netty event loop with
 * Netty's asynchronous {@link DnsNameResolver} (no cache: every resolution asks the server);
 * nothing blocks.
 */
public final class DnsSource implements EndpointSource {

  private static final EventLoopGroup SHARED = new MultiThreadIoEventLoopGroup(1,
      new DefaultThreadFactory("ballast-dns", true), NioIoHandler.newFactory());

  private final String name;
  private final int port; // 0 for SRV
  private final long periodNanos;
  private final long minRefreshNanos;
  private final EventLoop loop;
  private final DnsNameResolver resolver;

  // event loop only
  private Listener listener;
  private boolean inFlight;
  private boolean closed;
  private long lastStart = Long.MIN_VALUE / 2;
  private ScheduledFuture<?> next;

  private DnsSource(Builder b) {
    this.name = b.name;
    this.port = b.port;
    this.periodNanos = b.period.toNanos();
    this.minRefreshNanos = b.minRefreshInterval.toNanos();
    this.loop = SHARED.next();
    DnsNameResolverBuilder rb = new DnsNameResolverBuilder(loop)
        .datagramChannelType(NioDatagramChannel.class)
        .resolveCache(NoopDnsCache.INSTANCE)
        .queryTimeoutMillis(b.queryTimeout.toMillis())
        .nameServerProvider(b.nameServer == null
            ? DnsServerAddressStreamProviders.platformDefault()
            : new io.netty.resolver.dns.SingletonDnsServerAddressStreamProvider(b.nameServer));
    this.resolver = rb.build();
  }

  /**
   * Returns a builder of a source resolving a host name's A/AAAA records, each address taking
   * the given port and weight 1.
   *
   * @throws IllegalArgumentException if the name is empty or the port not in 1-65535
   */
  public static Builder forName(String host, int port) {
    Objects.requireNonNull(host, "host");
    if (host.isEmpty()) {
      throw new IllegalArgumentException("host: empty (expected: a DNS name)");
    }
    if (port < 1 || port > 65535) {
      throw new IllegalArgumentException("port: " + port + " (expected: 1-65535)");
    }
    return new Builder(host, port);
  }

  /**
   * Returns a builder of a source resolving SRV records, e.g. {@code _grpc._tcp.orders.internal}.
   *
   * @throws IllegalArgumentException if the name is empty
   */
  public static Builder forSrv(String srvName) {
    Objects.requireNonNull(srvName, "srvName");
    if (srvName.isEmpty()) {
      throw new IllegalArgumentException("srvName: empty (expected: e.g. _grpc._tcp.orders)");
    }
    return new Builder(srvName, 0);
  }

  @Override
  public void start(Listener l) {
    Objects.requireNonNull(l, "listener");
    loop.execute(() -> {
      listener = l;
      resolveNow();
    });
  }

  /**
   * Re-resolves now, or as soon as the minimum interval since the last resolution has passed;
   * a resolution already under way is not repeated.
   */
  @Override
  public void refresh() {
    loop.execute(() -> {
      if (closed || listener == null || inFlight) {
        return;
      }
      long wait = lastStart + minRefreshNanos - System.nanoTime();
      if (wait <= 0) {
        resolveNow();
      } else if (next == null || next.getDelay(TimeUnit.NANOSECONDS) > wait) {
        schedule(wait);
      }
    });
  }

  @Override
  public String name() {
    return "dns:" + (port == 0 ? name : name + ":" + port);
  }

  @Override
  public void close() {
    loop.execute(() -> {
      closed = true;
      if (next != null) {
        next.cancel(false);
      }
      resolver.close();
    });
  }

  private void schedule(long nanos) {
    if (next != null) {
      next.cancel(false);
    }
    next = loop.schedule(this::resolveNow, nanos, TimeUnit.NANOSECONDS);
  }

  private void resolveNow() {
    if (closed || inFlight) {
      return;
    }
    inFlight = true;
    lastStart = System.nanoTime();
    (port == 0 ? resolveSrv() : resolveName(name, port, 1)).whenComplete((entries, error) ->
        loop.execute(() -> {
          inFlight = false;
          if (closed) {
            return;
          }
          if (error != null) {
            listener.onFailure(error);
          } else if (entries.isEmpty()) {
            listener.onFailure(new IllegalStateException("no records for " + name));
          } else {
            listener.onEntries(entries);
          }
          schedule(periodNanos);
        }));
  }

  // address -> endpoint text, for each address of the host
  private CompletableFuture<Map<String, String>> resolveName(String host, int p, int weight) {
    return future(resolver.resolveAll(host)).thenApply(addresses -> {
      Map<String, String> entries = new HashMap<>();
      for (InetAddress a : addresses) {
        Endpoint e = Endpoint.of(a.getHostAddress(), p, weight, Map.of());
        entries.put(e.address(), e.toString());
      }
      return entries;
    });
  }

  private CompletableFuture<Map<String, String>> resolveSrv() {
    return future(resolver.resolveAll(new DefaultDnsQuestion(name, DnsRecordType.SRV)))
        .thenCompose(records -> {
          List<Srv> srvs = new ArrayList<>();
          try {
            for (DnsRecord r : records) {
              if (r instanceof DnsRawRecord && r.type() == DnsRecordType.SRV) {
                srvs.add(Srv.read(((DnsRawRecord) r).content()));
              }
            }
          } finally {
            records.forEach(io.netty.util.ReferenceCountUtil::release);
          }
          int best = srvs.stream().mapToInt(s -> s.priority).min().orElse(0);
          List<CompletableFuture<Map<String, String>>> parts = new ArrayList<>();
          for (Srv s : srvs) {
            if (s.priority == best) {
              parts.add(resolveName(s.target, s.port, Math.max(1, s.weight)));
            }
          }
          return CompletableFuture.allOf(parts.toArray(new CompletableFuture<?>[0]))
              .thenApply(v -> {
                Map<String, String> all = new HashMap<>();
                parts.forEach(p -> all.putAll(p.join()));
                return all;
              });
        });
  }

  private static <T> CompletableFuture<T> future(Future<T> f) {
    CompletableFuture<T> c = new CompletableFuture<>();
    f.addListener(x -> {
      if (x.isSuccess()) {
        c.complete(f.getNow());
      } else {
        c.completeExceptionally(x.cause());
      }
    });
    return c;
  }

  /** An SRV record's data (RFC 2782): priority, weight, port, target (never compressed). */
  static final class Srv {
    final int priority;
    final int weight;
    final int port;
    final String target;

    Srv(int priority, int weight, int port, String target) {
      this.priority = priority;
      this.weight = weight;
      this.port = port;
      this.target = target;
    }

    static Srv read(ByteBuf data) {
      ByteBuf b = data.duplicate();
      int priority = b.readUnsignedShort();
      int weight = b.readUnsignedShort();
      int port = b.readUnsignedShort();
      StringBuilder target = new StringBuilder();
      for (int len = b.readUnsignedByte(); len > 0; len = b.readUnsignedByte()) {
        if (target.length() > 0) {
          target.append('.');
        }
        target.append(b.readCharSequence(len, java.nio.charset.StandardCharsets.US_ASCII));
      }
      return new Srv(priority, weight, port, target.toString());
    }
  }

  /**
   * Builds a {@link DnsSource}. Defaults: re-resolution every 30 s, early re-resolutions at
   * most once a second, queries time out after 5 s, the system's name servers.
   */
  public static final class Builder {
    private final String name;
    private final int port;
    private Duration period = Duration.ofSeconds(30);
    private Duration minRefreshInterval = Duration.ofSeconds(1);
    private Duration queryTimeout = Duration.ofSeconds(5);
    private InetSocketAddress nameServer;

    private Builder(String name, int port) {
      this.name = name;
      this.port = port;
    }

    /** Sets how often the name is re-resolved; default 30 s. @throws IllegalArgumentException */
    public Builder period(Duration period) {
      this.period = positive(period, "period");
      return this;
    }

    /**
     * Sets the least time between two resolutions when {@link DnsSource#refresh()} asks for an
     * early one; default 1 s.
     */
    public Builder minRefreshInterval(Duration interval) {
      Objects.requireNonNull(interval, "interval");
      if (interval.isNegative()) {
        throw new IllegalArgumentException("minRefreshInterval: " + interval + " (expected: >= 0)");
      }
      this.minRefreshInterval = interval;
      return this;
    }

    /** Sets how long a query waits for an answer; default 5 s. */
    public Builder queryTimeout(Duration timeout) {
      this.queryTimeout = positive(timeout, "queryTimeout");
      return this;
    }

    /** Asks this name server only; default the system's ({@code /etc/resolv.conf}). */
    public Builder nameServer(InetSocketAddress server) {
      this.nameServer = Objects.requireNonNull(server, "server");
      return this;
    }

    /** Builds the source; it resolves once started. */
    public DnsSource build() {
      return new DnsSource(this);
    }

    private static Duration positive(Duration d, String what) {
      Objects.requireNonNull(d, what);
      if (d.isNegative() || d.isZero()) {
        throw new IllegalArgumentException(what + ": " + d + " (expected: > 0)");
      }
      return d;
    }
  }
}
