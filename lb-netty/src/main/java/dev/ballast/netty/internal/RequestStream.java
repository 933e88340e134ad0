package dev.ballast.netty.internal;

import dev.ballast.netty.http.Headers;
import dev.ballast.netty.http.HttpRequest;
import dev.ballast.netty.http.HttpResponse;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import java.util.Arrays;

/**
 * One request's HTTP/2 stream on an {@link Http2Dispatcher}'s connection: its request, its
 * exchange, and the answer read so far (status, fields, body); the listener of its writes.
 * Event loop only.
 */
final class RequestStream implements ChannelFutureListener {
  private static final byte[] NO_BODY = new byte[0];

  private final Http2Dispatcher dispatcher;
  final HttpRequest request;
  final Exchange<HttpResponse> exchange;
  final long token;
  int id;
  int status;
  Headers headers;
  byte[] body = NO_BODY;
  int length;

  RequestStream(Http2Dispatcher dispatcher, HttpRequest request, Exchange<HttpResponse> exchange,
      long token) {
    this.dispatcher = dispatcher;
    this.request = request;
    this.exchange = exchange;
    this.token = token;
  }

  /** Adds the bytes to the body; returns false if it would exceed {@code max}. */
  boolean append(ByteBuf data, int max) {
    int n = data.readableBytes();
    if (n > max - length) {
      return false;
    }
    if (length + n > body.length) {
      body = Arrays.copyOf(body, (int) Math.min(max, Math.max(length + n, 2L * body.length)));
    }
    data.getBytes(data.readerIndex(), body, length, n);
    length += n;
    return true;
  }

  HttpResponse response() {
    return new HttpResponse(status, headers,
        length == body.length ? body : Arrays.copyOf(body, length));
  }

  /** A write of this stream failed: it fails, if it has not ended. */
  @Override
  public void operationComplete(ChannelFuture f) {
    if (!f.isSuccess()) {
      dispatcher.writeFailed(this, f.cause());
    }
  }

  /** Returns the status code, or -1 if it is not three digits. */
  static int status(CharSequence status) {
    if (status == null || status.length() != 3) {
      return -1;
    }
    int code = 0;
    for (int i = 0; i < 3; i++) {
      char c = status.charAt(i);
      if (c < '0' || c > '9') {
        return -1;
      }
      code = code * 10 + c - '0';
    }
    return code;
  }
}
