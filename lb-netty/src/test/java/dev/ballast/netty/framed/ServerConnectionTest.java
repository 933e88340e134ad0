package dev.ballast.netty.framed;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.core.load.LoadReport;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.channel.embedded.EmbeddedChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** What a server connection holds while its answers wait to be written. */
class ServerConnectionTest {

  @Test
  void aLoadReportWaitingToBeWrittenCountsInTheHeldBytes() {
    ServerLoad load = ServerLoad.fixed(LoadReport.of(0.5, 100, 0));
    ServerConnection connection = new ServerConnection(
        request -> CompletableFuture.completedFuture(new byte[7]), 1 << 20, new AtomicLong(), load);
    List<ChannelPromise> unwritten = new ArrayList<>();
    EmbeddedChannel ch = new EmbeddedChannel(new ChannelOutboundHandlerAdapter() {
      @Override
      public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        unwritten.add(promise); // a socket that takes nothing: every write waits
      }
    }, connection);
    ch.writeInbound(new Frame(Frame.REQUEST, 1 | Frame.ASKS_LOAD_REPORT, new byte[3]));
    int report = load.report().length;
    assertThat(report).isPositive();
    // the request (3), the answer (7) and the report, until the answer is written
    assertThat(connection.held()).isEqualTo(3 + 7 + report);
    unwritten.forEach(ChannelPromise::trySuccess);
    assertThat(connection.held()).isZero();
    ch.finishAndReleaseAll();
  }
}
