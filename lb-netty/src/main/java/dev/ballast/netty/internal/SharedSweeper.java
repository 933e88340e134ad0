package dev.ballast.netty.internal;

import io.netty.channel.EventLoopGroup;
import io.netty.util.concurrent.ScheduledFuture;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

/**
 * One periodic task per event loop group and tick that runs the sweeps of every client on it,
 * rather than one timer per client: an application with many clients wakes up once per tick,
 * not once per client. The task starts with the first sweep registered and stops when the last
 * one is closed. A sweep that throws is logged ({@code dev.ballast.netty.sweep}, WARNING) and
 * does not stop the others, nor its own later turns.
 */
public final class SharedSweeper {

  private static final System.Logger LOG = System.getLogger("dev.ballast.netty.sweep");
  // guarded by itself
  private static final Map<Key, SharedSweeper> RUNNING = new HashMap<>();

  private record Key(EventLoopGroup group, long tickNanos) {}

  private final Key key;
  private final CopyOnWriteArrayList<Runnable> sweeps = new CopyOnWriteArrayList<>();
  private ScheduledFuture<?> timer;

  private SharedSweeper(Key key) {
    this.key = key;
  }

  /** A registered sweep; closing it (once or more) removes it. */
  public interface Registration extends AutoCloseable {
    /** Removes the sweep; it runs no more turns after this returns (one may be under way). */
    @Override
    void close();
  }

  /**
   * Runs {@code sweep} every {@code tickNanos} on the group's timer shared with every other
   * sweep of the same group and tick, until the returned registration is closed.
   *
   * @throws java.util.concurrent.RejectedExecutionException if the group is shut down
   */
  public static Registration register(EventLoopGroup group, long tickNanos, Runnable sweep) {
    Objects.requireNonNull(group, "group");
    Objects.requireNonNull(sweep, "sweep");
    if (tickNanos <= 0) {
      throw new IllegalArgumentException("tick: " + tickNanos + " ns (expected: > 0)");
    }
    Key key = new Key(group, tickNanos);
    SharedSweeper s;
    synchronized (RUNNING) {
      s = RUNNING.get(key);
      if (s == null) {
        s = new SharedSweeper(key);
        s.timer = group.next().scheduleAtFixedRate(s::runAll, tickNanos, tickNanos,
            TimeUnit.NANOSECONDS);
        RUNNING.put(key, s);
      }
      s.sweeps.add(sweep);
    }
    SharedSweeper owner = s;
    return new Registration() {
      private boolean closed;

      @Override
      public void close() {
        synchronized (RUNNING) {
          if (closed) {
            return;
          }
          closed = true;
          owner.sweeps.remove(sweep); // one occurrence: a sweep registered twice stays once
          if (owner.sweeps.isEmpty()) {
            owner.timer.cancel(false);
            RUNNING.remove(owner.key);
          }
        }
      }
    };
  }

  /** Returns how many sweeps the group's shared timer of this tick runs (0: no timer). */
  public static int sweepsOn(EventLoopGroup group, long tickNanos) {
    synchronized (RUNNING) {
      SharedSweeper s = RUNNING.get(new Key(group, tickNanos));
      return s == null ? 0 : s.sweeps.size();
    }
  }

  private void runAll() {
    for (Runnable sweep : sweeps) {
      try {
        sweep.run();
      } catch (RuntimeException e) {
        LOG.log(System.Logger.Level.WARNING, "a deadline sweep failed; it runs again next tick", e);
      }
    }
  }
}
