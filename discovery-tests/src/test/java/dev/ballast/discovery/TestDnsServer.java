package dev.ballast.discovery;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.DatagramChannel;
import io.netty.channel.socket.nio.NioDatagramChannel;
import io.netty.handler.codec.dns.DatagramDnsQuery;
import io.netty.handler.codec.dns.DatagramDnsQueryDecoder;
import io.netty.handler.codec.dns.DatagramDnsResponse;
import io.netty.handler.codec.dns.DatagramDnsResponseEncoder;
import io.netty.handler.codec.dns.DefaultDnsRawRecord;
import io.netty.handler.codec.dns.DnsQuestion;
import io.netty.handler.codec.dns.DnsRecordType;
import io.netty.handler.codec.dns.DnsResponseCode;
import io.netty.handler.codec.dns.DnsSection;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A DNS server on 127.0.0.1 (UDP, Netty's DNS codec) answering A and SRV questions from tables
 * the test changes while it runs; an unknown name gets NXDOMAIN. TTLs are 0.
 */
final class TestDnsServer implements AutoCloseable {

  /** One SRV answer. */
  record Srv(int priority, int weight, int port, String target) {}

  private final EventLoopGroup group =
      new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
  private final Map<String, List<String>> a = new ConcurrentHashMap<>();
  private final Map<String, List<Srv>> srv = new ConcurrentHashMap<>();
  private final AtomicInteger queries = new AtomicInteger();
  private final Channel channel;

  TestDnsServer() throws InterruptedException {
    channel = new Bootstrap().group(group).channel(NioDatagramChannel.class)
        .handler(new ChannelInitializer<DatagramChannel>() {
          @Override
          protected void initChannel(DatagramChannel ch) {
            ch.pipeline().addLast(new DatagramDnsQueryDecoder(), new DatagramDnsResponseEncoder(),
                new SimpleChannelInboundHandler<DatagramDnsQuery>() {
                  @Override
                  protected void channelRead0(ChannelHandlerContext ctx, DatagramDnsQuery q) {
                    ctx.writeAndFlush(answer(q));
                  }
                });
          }
        })
        .bind(new InetSocketAddress("127.0.0.1", 0)).sync().channel();
  }

  InetSocketAddress address() {
    return (InetSocketAddress) channel.localAddress();
  }

  /** Sets the A records of a name (IPv4 literals). */
  void setA(String name, String... ips) {
    a.put(name, List.of(ips));
  }

  /** Sets the SRV records of a name. */
  void setSrv(String name, Srv... records) {
    srv.put(name, List.of(records));
  }

  int queries() {
    return queries.get();
  }

  private DatagramDnsResponse answer(DatagramDnsQuery query) {
    queries.incrementAndGet();
    DnsQuestion q = query.recordAt(DnsSection.QUESTION);
    DatagramDnsResponse r = new DatagramDnsResponse(query.recipient(), query.sender(), query.id());
    r.addRecord(DnsSection.QUESTION, q);
    String name = q.name().endsWith(".") ? q.name().substring(0, q.name().length() - 1) : q.name();
    boolean known = false;
    if (q.type() == DnsRecordType.A && a.containsKey(name)) {
      known = true;
      for (String ip : a.get(name)) {
        r.addRecord(DnsSection.ANSWER, new DefaultDnsRawRecord(q.name(), DnsRecordType.A, 0,
            Unpooled.wrappedBuffer(ipv4(ip))));
      }
    } else if (q.type() == DnsRecordType.SRV && srv.containsKey(name)) {
      known = true;
      for (Srv s : srv.get(name)) {
        ByteBuf data = Unpooled.buffer();
        data.writeShort(s.priority()).writeShort(s.weight()).writeShort(s.port());
        for (String label : s.target().split("\\.")) {
          data.writeByte(label.length()).writeCharSequence(label, StandardCharsets.US_ASCII);
        }
        data.writeByte(0);
        r.addRecord(DnsSection.ANSWER, new DefaultDnsRawRecord(q.name(), DnsRecordType.SRV, 0,
            data));
      }
    } else if (a.containsKey(name) || srv.containsKey(name)) {
      known = true; // the name exists, without records of this type
    }
    if (!known) {
      r.setCode(DnsResponseCode.NXDOMAIN);
    }
    return r;
  }

  private static byte[] ipv4(String ip) {
    try {
      return InetAddress.getByName(ip).getAddress(); // a literal: no look-up
    } catch (java.net.UnknownHostException e) {
      throw new IllegalArgumentException(ip, e);
    }
  }

  @Override
  public void close() {
    channel.close().syncUninterruptibly();
    group.shutdownGracefully(0, 0, java.util.concurrent.TimeUnit.SECONDS).syncUninterruptibly();
  }
}
