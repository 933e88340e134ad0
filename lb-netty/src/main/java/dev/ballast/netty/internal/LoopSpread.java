package dev.ballast.netty.internal;

import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.util.concurrent.EventExecutor;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One client's turn over its event loops: each new connection of the client goes to the next
 * loop, so that a client's connections spread evenly over the loops whoever else shares the
 * group. The group's own {@code next()} turns once for every channel, timer and server of
 * everybody on it, and left a client's 4 connections on one of 2 loops in a third of the runs
 * (half the client's CPU idle).
 */
final class LoopSpread {

  private final EventLoopGroup group;
  private final EventLoop[] loops;
  private final AtomicInteger next = new AtomicInteger();

  LoopSpread(EventLoopGroup group) {
    this.group = group;
    List<EventLoop> list = new ArrayList<>();
    for (EventExecutor e : group) {
      if (!(e instanceof EventLoop)) {
        throw new IllegalArgumentException("eventLoopGroup: " + group
            + " (expected: a group of event loops, found " + e.getClass().getName() + ")");
      }
      list.add((EventLoop) e);
    }
    if (list.isEmpty()) {
      throw new IllegalArgumentException("eventLoopGroup: " + group + " (expected: a loop)");
    }
    this.loops = list.toArray(EventLoop[]::new);
  }

  /** The group, for timers and tasks that need no particular loop. */
  EventLoopGroup group() {
    return group;
  }

  /** The loop for the client's next connection. */
  EventLoop next() {
    return loops[Math.floorMod(next.getAndIncrement(), loops.length)];
  }
}
