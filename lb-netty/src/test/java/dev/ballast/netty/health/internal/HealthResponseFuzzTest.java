package dev.ballast.netty.health.internal;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.ballast.core.Endpoint;
import dev.ballast.core.Health;
import dev.ballast.netty.http.HttpRequest;
import dev.ballast.netty.http.HttpResponse;
import dev.ballast.netty.internal.Dispatcher;
import dev.ballast.netty.internal.Exchange;
import dev.ballast.netty.internal.HttpProtocol;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.util.ReferenceCountUtil;
import java.util.ArrayList;
import java.util.List;

/**
 * Fuzz target (Jazzer) for the HTTP/1.1 health check's response path: {@link HttpProbe}'s own
 * pipeline (the client's decoder, the check's {@code StatusOnly}, the aggregator, the dispatcher)
 * and its question, fed bytes from a peer cut into random chunks, under a random body limit;
 * the same chunks go to the client's own HTTP path with no such limit, the reference. The check
 * reports at most once, and once it has, its connection is closed; when the reference reads an
 * answer, the check has reported that answer's verdict (2xx passes) whatever the body's length
 * against the limit; nothing throws out of the pipeline, and buffers are released (the leak
 * detector runs in paranoid mode).
 */
class HealthResponseFuzzTest {

  @FuzzTest
  void respond(FuzzedDataProvider data) {
    int max = data.consumeInt(64, 4096);
    EmbeddedChannel channel = new EmbeddedChannel();
    EmbeddedChannel reference = new EmbeddedChannel();
    List<Health> verdicts = new ArrayList<>();
    List<Object> answers = new ArrayList<>();
    try {
      HttpProbe probe = new HttpProbe(new HttpProtocol(max, null), "/health",
          channel.eventLoop(), 1000);
      Probe.Check check = new Probe.Check(Endpoint.of("127.0.0.1", 8080), verdicts::add);
      check.channel = channel;
      probe.init(channel.pipeline(), check);
      probe.ask(channel, check);
      Dispatcher<HttpRequest, HttpResponse> d = new HttpProtocol(Integer.MAX_VALUE, null)
          .init(reference.pipeline(), Endpoint.of("127.0.0.1", 8080));
      d.send(HttpRequest.get("/health"), new Exchange<>() {
        @Override
        public void onWritten() {}

        @Override
        public void onResponse(HttpResponse response) {
          answers.add(response);
        }

        @Override
        public void onFailure(Throwable cause) {
          answers.add(cause);
        }
      });
      drain(channel);
      drain(reference);
      while (data.remainingBytes() > 0) {
        byte[] chunk = data.consumeBytes(data.consumeInt(1, 64));
        if (channel.isActive()) {
          channel.writeInbound(Unpooled.wrappedBuffer(chunk));
        }
        if (reference.isActive()) {
          reference.writeInbound(Unpooled.wrappedBuffer(chunk));
        }
      }
      channel.runPendingTasks();
      if (verdicts.size() > 1) {
        throw new AssertionError("reported twice: " + verdicts);
      }
      if (!verdicts.isEmpty() && channel.isActive()) {
        throw new AssertionError("reported " + verdicts + " but the connection stays open");
      }
      if (!answers.isEmpty() && answers.get(0) instanceof HttpResponse r) {
        Health expected = r.status() >= 200 && r.status() < 300 ? Health.HEALTHY
            : Health.UNHEALTHY;
        if (!verdicts.equals(List.of(expected))) {
          throw new AssertionError("the client read " + r.status() + ", the check reported "
              + verdicts + " (limit " + max + ")");
        }
      }
    } finally {
      channel.finishAndReleaseAll();
      reference.finishAndReleaseAll();
    }
  }

  private static void drain(EmbeddedChannel channel) {
    for (Object o = channel.readOutbound(); o != null; o = channel.readOutbound()) {
      ReferenceCountUtil.release(o);
    }
  }
}
