package dev.ballast.netty.internal;

import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.util.concurrent.EventExecutor;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;

/**
 * Which of its event loops a client's connection goes on. A connection opened for a call made
 * on one of the client's own loops goes on that loop while that loop is not the busiest (its
 * load the most of all and more than the least), so that a closed loop, which sends each call
 * from the loop that completed the one before, stays on one loop: no hand-over of every other
 * call to another loop (a task, a wake-up, two thread switches), as when connections went
 * round the loops whoever asked. A busiest loop's caller gets the least loaded loop; a caller
 * on no loop of the client (an application thread, a resolver) gets the next loop in turn, so
 * that a client's connections spread evenly over the loops whoever else shares the group. The
 * group's own {@code next()} turns once for every channel, timer and server of everybody on it,
 * and left a client's 4 connections on one of 2 loops in a third of the runs (half the
 * client's CPU idle).
 *
 * <p>A loop's load is the calls in flight on the client's connections on it plus the
 * connections being opened there; the pools keep it ({@link #add}). The pool also prefers, of
 * its free connections with the fewest calls, one on the caller's loop ({@link #callerLoop}).
 */
final class LoopSpread {

  /** Stands for no loop of the client: the caller is another thread. */
  static final int NONE = -1;

  // one int per 64 bytes, so that two loops' counters never share a cache line
  private static final int STRIDE = 16;

  private final EventLoopGroup group;
  private final EventLoop[] loops;
  private final AtomicInteger next = new AtomicInteger();
  private final AtomicIntegerArray load;

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
    this.load = new AtomicIntegerArray(loops.length * STRIDE);
  }

  /** The group, for timers and tasks that need no particular loop. */
  EventLoopGroup group() {
    return group;
  }

  /** Returns the index of the client's loop the calling thread is, or {@link #NONE}. */
  int callerLoop() {
    for (int i = 0; i < loops.length; i++) {
      if (loops[i].inEventLoop()) {
        return i;
      }
    }
    return NONE;
  }

  /**
   * Returns the index of the loop for a connection opened now, and counts the opening in its
   * load (the opener takes it off with {@link #add} once the connection opened or failed): the
   * caller's loop unless it is the busiest, else the least loaded; off the loops, the next.
   */
  int forNewConnection() {
    int caller = callerLoop();
    int chosen;
    if (caller == NONE) {
      chosen = Math.floorMod(next.getAndIncrement(), loops.length);
    } else {
      chosen = caller;
      int mine = load(caller);
      int most = mine;
      int least = mine;
      int leastAt = caller;
      for (int i = 0; i < loops.length; i++) {
        int l = load(i);
        most = Math.max(most, l);
        if (l < least) {
          least = l;
          leastAt = i;
        }
      }
      if (mine == most && most > least) {
        chosen = leastAt;
      }
    }
    add(chosen, 1);
    return chosen;
  }

  /** Returns the loop at {@code index}. */
  EventLoop loop(int index) {
    return loops[index];
  }

  /** Returns the index of {@code loop} among the client's loops, or {@link #NONE}. */
  int indexOf(EventLoop loop) {
    for (int i = 0; i < loops.length; i++) {
      if (loops[i] == loop) {
        return i;
      }
    }
    return NONE;
  }

  /** Adds {@code delta} to the load of the loop at {@code index} ({@link #NONE}: nothing). */
  void add(int index, int delta) {
    if (index != NONE) {
      load.getAndAdd(index * STRIDE, delta);
    }
  }

  /** Returns the load of the loop at {@code index}: calls in flight and connections opening. */
  int load(int index) {
    return load.get(index * STRIDE);
  }
}
