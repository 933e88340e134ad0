package dev.ballast.netty.internal;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.ballast.core.Endpoint;
import dev.ballast.netty.http.HttpRequest;
import dev.ballast.netty.http.HttpResponse;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.util.ReferenceCountUtil;
import java.util.ArrayList;
import java.util.List;

/**
 * Fuzz target (Jazzer) for the HTTP/1.1 response path ({@link HttpProtocol}'s decoder,
 * aggregator and dispatcher): after a GET or a HEAD, bytes from a peer cut into random chunks,
 * with a random body limit. The request ends exactly once: with a final answer (status 200 to
 * 999, a body within the limit, none for a HEAD), or with a failure that closes the connection;
 * interim answers never end it. Buffers are released (the leak detector runs in paranoid mode).
 */
class HttpResponseFuzzTest {

  @FuzzTest
  void respond(FuzzedDataProvider data) {
    int max = data.consumeInt(64, 4096);
    boolean head = data.consumeBoolean();
    EmbeddedChannel channel = new EmbeddedChannel();
    Dispatcher<HttpRequest, HttpResponse> d = new HttpProtocol(max, null)
        .init(channel.pipeline(), Endpoint.of("127.0.0.1", 8080));
    List<Object> outcomes = new ArrayList<>();
    try {
      d.send(head ? HttpRequest.of("HEAD", "/", new byte[0]) : HttpRequest.get("/"),
          new Exchange<>() {
            @Override
            public void onWritten() {}

            @Override
            public void onResponse(HttpResponse response) {
              outcomes.add(response);
            }

            @Override
            public void onFailure(Throwable cause) {
              outcomes.add(cause);
            }
          });
      for (Object o = channel.readOutbound(); o != null; o = channel.readOutbound()) {
        ReferenceCountUtil.release(o);
      }
      while (data.remainingBytes() > 0 && channel.isActive()) {
        channel.writeInbound(Unpooled.wrappedBuffer(data.consumeBytes(data.consumeInt(1, 64))));
      }
      if (outcomes.size() > 1) {
        throw new AssertionError("the request ended twice: " + outcomes);
      }
      if (!outcomes.isEmpty() && outcomes.get(0) instanceof HttpResponse r) {
        if (r.status() < 200 || r.status() > 999 || r.body().length > max
            || (head && r.body().length > 0)) {
          throw new AssertionError(r + " (limit " + max + ", HEAD " + head + ")");
        }
      } else if (!outcomes.isEmpty() && channel.isActive()) {
        throw new AssertionError("failed but the connection stays open: " + outcomes);
      }
    } finally {
      channel.finishAndReleaseAll();
    }
  }
}
