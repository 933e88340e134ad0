package dev.ballast.netty;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.netty.http.HttpRequest;
import dev.ballast.netty.http.HttpResponse;
import dev.ballast.netty.internal.Transport;
import dev.ballast.netty.testing.HttpUpstream;
import io.netty.channel.IoEventLoop;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SingleThreadIoEventLoop;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.time.Duration;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * What an HTTP/1.1 call made off the connection's event loop costs that loop: one task, handed
 * over once (each hand-off wakes a sleeping loop: a system call, and a thread switch before the
 * request leaves).
 */
class HttpHandOffTest {

  @Test
  void aCallFromAnotherThreadHandsItsConnectionsLoopOneTask() throws Exception {
    AtomicInteger fromCaller = new AtomicInteger();
    Thread caller = Thread.currentThread();
    CountingGroup group = new CountingGroup(fromCaller, caller);
    try (HttpUpstream server = HttpUpstream.delayed(Duration.ZERO);
        BallastClient<HttpRequest, HttpResponse> client = BallastClient.http()
            .endpoints(server.hostPort())
            .eventLoopGroup(group)
            .timeout(Duration.ofSeconds(10))
            .build()) {
      // the first call opens the connection (its own tasks); the calls after it reuse it
      assertThat(client.call(HttpRequest.get("/")).get(10, TimeUnit.SECONDS).status())
          .isEqualTo(200);
      int calls = 20;
      fromCaller.set(0);
      for (int i = 0; i < calls; i++) {
        assertThat(client.call(HttpRequest.get("/")).get(10, TimeUnit.SECONDS).status())
            .isEqualTo(200);
      }
      // before: two (the head's write, the body's write and flush), and now and then a third
      // (a listener added to a write the loop had already done runs as a task of its own)
      assertThat(fromCaller.get()).as("tasks the caller's thread handed the loop").isEqualTo(calls);
      assertThat(server.requests()).isEqualTo(calls + 1);
    } finally {
      group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }
  }

  /** One loop of the shared group's transport, counting the tasks a given thread hands it. */
  private static final class CountingGroup extends MultiThreadIoEventLoopGroup {
    CountingGroup(AtomicInteger counter, Thread from) {
      super(1, new DefaultThreadFactory("hand-off-test", true),
          Transport.isEpoll() ? EpollIoHandler.newFactory() : NioIoHandler.newFactory(),
          counter, from);
    }

    @Override
    protected IoEventLoop newChild(Executor executor, IoHandlerFactory factory, Object... args) {
      AtomicInteger counter = (AtomicInteger) args[0];
      Thread from = (Thread) args[1];
      return new SingleThreadIoEventLoop(this, executor, factory) {
        @Override
        public void execute(Runnable task) {
          count();
          super.execute(task);
        }

        @Override
        public void lazyExecute(Runnable task) {
          count();
          super.lazyExecute(task);
        }

        private void count() {
          if (Thread.currentThread() == from) {
            counter.incrementAndGet();
          }
        }
      };
    }
  }
}
