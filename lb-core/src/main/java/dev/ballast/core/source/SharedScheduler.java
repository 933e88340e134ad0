package dev.ballast.core.source;

import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;

/** The daemon thread every feed applies on unless given a scheduler; made on first use. */
final class SharedScheduler {

  static final ScheduledExecutorService INSTANCE = create();

  private SharedScheduler() {}

  private static ScheduledExecutorService create() {
    ScheduledThreadPoolExecutor s = new ScheduledThreadPoolExecutor(1, r -> {
      Thread t = new Thread(r, "ballast-endpoint-feed");
      t.setDaemon(true);
      return t;
    });
    s.setRemoveOnCancelPolicy(true);
    return s;
  }
}
