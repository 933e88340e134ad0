package dev.ballast.netty.internal;

import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.ScheduledFuture;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

/**
 * One periodic task per event loop and tick that runs the sweeps of every client registered on
 * that loop, rather than one timer per client: with clients spread over a group's loops (each
 * takes {@code group.next()}), an application wakes up at most once per loop per tick, however
 * many clients it has. The task starts with the first sweep registered on a loop and stops when
 * the last one is closed, or is started again if it died. A sweep that throws is logged ({@code
 * dev.ballast.netty.sweep}, WARNING) and stops neither the others nor its own later turns.
 *
 * <p>The sweeps of one loop run one after another on it, so a slow sweep (or a slow callback it
 * completes) delays the other clients' sweeps on that loop.
 */
public final class SharedSweeper {

  private static final System.Logger LOG = System.getLogger("dev.ballast.netty.sweep");
  // guarded by itself
  private static final Map<Key, SharedSweeper> RUNNING = new HashMap<>();

  private record Key(EventExecutor loop, long tickNanos) {}

  private final Key key;
  private final CopyOnWriteArrayList<Runnable> sweeps = new CopyOnWriteArrayList<>();
  private ScheduledFuture<?> timer;

  private SharedSweeper(Key key) {
    this.key = key;
  }

  /** A registered sweep; closing it (once or more) removes it. */
  public interface Registration extends AutoCloseable {
    /**
     * Removes the sweep. A turn of the shared task already under way may still run it once
     * after this returns; no later turn does.
     */
    @Override
    void close();
  }

  /**
   * Runs {@code sweep} every {@code tickNanos} on the loop's timer shared with every other sweep
   * of the same loop and tick, until the returned registration is closed.
   *
   * @throws java.util.concurrent.RejectedExecutionException if the loop is shut down
   */
  public static Registration register(EventExecutor loop, long tickNanos, Runnable sweep) {
    Objects.requireNonNull(loop, "loop");
    Objects.requireNonNull(sweep, "sweep");
    if (tickNanos <= 0) {
      throw new IllegalArgumentException("tick: " + tickNanos + " ns (expected: > 0)");
    }
    Key key = new Key(loop, tickNanos);
    SharedSweeper s;
    synchronized (RUNNING) {
      // loops shut down with sweeps never closed: forget them, so they hold no clients
      RUNNING.values().removeIf(r -> r.timer.isDone() && r.key.loop.isShuttingDown());
      s = RUNNING.get(key);
      if (s == null || s.timer.isDone()) {
        if (s == null) {
          s = new SharedSweeper(key);
        }
        s.timer = loop.scheduleAtFixedRate(s::runAll, tickNanos, tickNanos,
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
            RUNNING.remove(owner.key, owner);
          }
        }
      }
    };
  }

  /** Returns how many sweeps the loop's shared timer of this tick runs (0: no timer). */
  public static int sweepsOn(EventExecutor loop, long tickNanos) {
    synchronized (RUNNING) {
      SharedSweeper s = RUNNING.get(new Key(loop, tickNanos));
      return s == null ? 0 : s.sweeps.size();
    }
  }

  private void runAll() {
    for (Runnable sweep : sweeps) {
      try {
        sweep.run();
      } catch (Throwable t) {
        // an Error too: rethrown, it would end the timer of every client on this loop
        LOG.log(System.Logger.Level.WARNING, "a deadline sweep failed; it runs again next tick", t);
      }
    }
  }
}
