package dev.ballast.discovery.etcd;

import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;

/** The daemon thread on which sources wait before reading etcd again. */
final class ResyncTimer {

  static final ScheduledExecutorService SCHEDULER = create();

  private ResyncTimer() {}

  private static ScheduledExecutorService create() {
    ScheduledThreadPoolExecutor s = new ScheduledThreadPoolExecutor(1, r -> {
      Thread t = new Thread(r, "ballast-etcd-retry");
      t.setDaemon(true);
      return t;
    });
    s.setRemoveOnCancelPolicy(true);
    return s;
  }
}
