package dev.ballast.netty.internal;

import dev.ballast.core.Endpoint;
import dev.ballast.netty.http.Headers;
import dev.ballast.netty.http.HttpRequest;
import dev.ballast.netty.http.HttpResponse;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.http2.DefaultHttp2Connection;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.Http2ConnectionHandler;
import io.netty.handler.codec.http2.Http2ConnectionHandlerBuilder;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2Settings;
import io.netty.handler.ssl.SslContext;
import java.util.Map;

/**
 * HTTP/2 on the client side (RFC 9113) on Netty's HTTP/2 codec: h2c with prior knowledge over
 * TCP, h2 chosen by ALPN over TLS. Many requests share a connection as streams, up to the
 * server's MAX_CONCURRENT_STREAMS (and the pool's per-connection cap); see {@link
 * Http2Dispatcher} for GOAWAY and refused streams.
 */
public final class Http2Protocol extends HttpProtocols {

  private final int maxInFlight;

  /**
   * Creates the protocol: bodies over {@code maxContentLength} fail their request, at most
   * {@code maxInFlight} streams per connection (fewer if the server says so), over TLS when
   * {@code tls} (which must offer {@code h2} by ALPN) is not null.
   */
  public Http2Protocol(int maxContentLength, int maxInFlight, SslContext tls) {
    super(maxContentLength, tls);
    this.maxInFlight = maxInFlight;
  }

  @Override
  public Dispatcher<HttpRequest, HttpResponse> init(ChannelPipeline pipeline, Endpoint endpoint) {
    Http2Dispatcher d = new Http2Dispatcher(this, authority(endpoint, tls != null));
    Http2ConnectionHandler h = new Http2ConnectionHandlerBuilder()
        .connection(new DefaultHttp2Connection(false))
        .frameListener(d.listener())
        // no server push; a header list as big as HTTP/1.1's default limit
        .initialSettings(Http2Settings.defaultSettings().pushEnabled(false)
            .maxHeaderListSize(8192))
        .build();
    pipeline.addLast(h, d);
    return d;
  }

  @Override
  public int maxInFlightPerConnection() {
    return maxInFlight;
  }

  /** The request's header block: pseudo-headers first, {@code Host} as {@code :authority}. */
  Http2Headers headers(HttpRequest request, String defaultAuthority) {
    Headers fields = request.headers();
    String host = fields.get("host");
    Http2Headers h = new DefaultHttp2Headers(false, fields.size() + 5)
        .method(request.method())
        .scheme(tls != null ? "https" : "http")
        .authority(host != null ? host : defaultAuthority)
        .path(request.uri());
    for (int i = 0, n = fields.size(); i < n; i++) {
      if (!fields.name(i).equals("host")) {
        h.add(fields.name(i), fields.value(i));
      }
    }
    if ((request.body().length > 0 || expectsBody(request.method()))
        && !fields.contains("content-length")) {
      h.setInt("content-length", request.body().length);
    }
    return h;
  }

  /** The response's fields, without the pseudo-headers. */
  static Headers fields(Http2Headers headers) {
    Headers.Builder b = Headers.builder();
    for (Map.Entry<CharSequence, CharSequence> e : headers) {
      CharSequence name = e.getKey();
      if (name.length() > 0 && name.charAt(0) != ':') {
        b.add(name.toString(), e.getValue().toString());
      }
    }
    return b.build();
  }
}
