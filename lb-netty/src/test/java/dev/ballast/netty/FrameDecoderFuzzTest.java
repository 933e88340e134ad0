package dev.ballast.netty;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.ballast.core.load.EndpointLoadMetrics;
import dev.ballast.core.load.LoadReport;
import dev.ballast.netty.framed.Frame;
import dev.ballast.netty.framed.FrameDecoder;
import dev.ballast.netty.framed.FrameTooLargeException;
import dev.ballast.netty.framed.MalformedFrameException;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.nio.charset.StandardCharsets;

/**
 * Fuzz target (Jazzer) for the framed protocol's {@link FrameDecoder}: bytes from a peer, cut
 * into random chunks, with a random maximum frame size. The documented failures are {@link
 * FrameTooLargeException} and {@link MalformedFrameException}, after which every further byte
 * is discarded; decoded frames have a known type and fit the maximum, and a load report's bytes
 * read as the client reads them give a usable report. Buffers are released
 * (the leak detector runs in paranoid mode). The framed protocol's error handling held against
 * 20 misbehaving-server scenarios (issue 18); this keeps trying it.
 */
class FrameDecoderFuzzTest {

  @FuzzTest
  void decode(FuzzedDataProvider data) {
    int max = data.consumeInt(Frame.HEADER_BYTES, 1 << 16);
    EmbeddedChannel channel = new EmbeddedChannel(new FrameDecoder(max));
    boolean failed = false;
    try {
      while (data.remainingBytes() > 0) {
        byte[] chunk = data.consumeBytes(data.consumeInt(1, 64));
        boolean failedBefore = failed;
        try {
          channel.writeInbound(Unpooled.wrappedBuffer(chunk));
        } catch (FrameTooLargeException | MalformedFrameException expected) {
          if (failed) {
            throw new AssertionError("a second error after the first: " + expected);
          }
          failed = true;
        }
        for (Object o = channel.readInbound(); o != null; o = channel.readInbound()) {
          Frame f = (Frame) o;
          if (failedBefore) {
            throw new AssertionError(f + " decoded after an error");
          }
          if (f.type() < Frame.REQUEST || f.type() > Frame.LOAD_REPORT
              || f.frameLength() > max) {
            throw new AssertionError(f + " (maximum length " + max + ")");
          }
          if (f.type() == Frame.LOAD_REPORT) { // read as the client reads it: never throws
            LoadReport r = EndpointLoadMetrics.parse(
                new String(f.payload(), StandardCharsets.UTF_8));
            if (!(r.utilization() >= 0 && r.weight(1) >= 0
                && r.weight(1) < Double.POSITIVE_INFINITY)) {
              throw new AssertionError("unusable report " + r + " from " + f);
            }
          }
        }
      }
    } finally {
      channel.finishAndReleaseAll();
    }
  }
}
