package dev.ballast.netty.health.internal;

import dev.ballast.core.Node;
import dev.ballast.core.Ticker;
import dev.ballast.core.health.HealthCheckConfig;
import dev.ballast.core.health.HealthChecker;
import dev.ballast.core.health.HealthProbe;
import dev.ballast.core.log.StateChangeLog;
import dev.ballast.netty.health.HealthCheck;
import dev.ballast.netty.http.HttpRequest;
import dev.ballast.netty.http.HttpResponse;
import dev.ballast.netty.internal.FramedProtocol;
import dev.ballast.netty.internal.Protocol;
import io.netty.channel.EventLoopGroup;
import io.netty.util.concurrent.ScheduledFuture;
import java.util.Collection;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.random.RandomGenerator;

/**
 * A client's active health checks: lb-core's {@link HealthChecker} with the probe of the client's
 * protocol (a framed ping, or {@code GET path} over HTTP), driven by one fixed-rate timer on one
 * of the client's event loops. The tick is a quarter of the shorter of the interval and the
 * timeout, between 1 ms and 250 ms: checks start and time out at most one tick late, and a tick
 * with nothing due costs one heap peek.
 *
 * @param <T> the thing being balanced
 */
public final class ActiveChecks<T> {

  private static final long MAX_TICK = TimeUnit.MILLISECONDS.toNanos(250);
  private static final long MIN_TICK = TimeUnit.MILLISECONDS.toNanos(1);

  private final HealthChecker<T> checker;
  private final ScheduledFuture<?> timer;

  private ActiveChecks(HealthChecker<T> checker, EventLoopGroup group) {
    this.checker = checker;
    HealthCheckConfig c = checker.config();
    long tick = Math.max(MIN_TICK, Math.min(MAX_TICK,
        Math.min(c.interval().toNanos(), c.timeout().toNanos()) / 4));
    ScheduledFuture<?> t;
    try {
      t = group.next().scheduleAtFixedRate(this::tick, tick, tick, TimeUnit.NANOSECONDS);
    } catch (RejectedExecutionException e) { // loops shut down: calls fail, nothing to check
      t = null;
    }
    this.timer = t;
  }

  /**
   * Starts the checks of a client, or returns null when they are off.
   *
   * @param protocol the client's protocol: framed, HTTP/1.1 or HTTP/2
   * @param connectTimeoutMillis the connect timeout of a check's connection
   * @param states where the checks' verdict changes are logged
   */
  @SuppressWarnings("unchecked")
  public static <T> ActiveChecks<T> start(HealthCheck settings, Protocol<?, ?> protocol,
      EventLoopGroup group, int connectTimeoutMillis, Ticker ticker, RandomGenerator random,
      StateChangeLog states) {
    if (!settings.enabled()) {
      return null;
    }
    Probe probe = protocol instanceof FramedProtocol f
        ? new PingProbe(f.maxFrameSize(), f.tls(), group, connectTimeoutMillis)
        : new HttpProbe((Protocol<HttpRequest, HttpResponse>) protocol, settings.path(), group,
            connectTimeoutMillis);
    HealthProbe<T> typed = (node, result) -> probe.check((Node<Object>) (Node<?>) node, result);
    return new ActiveChecks<>(
        new HealthChecker<>(settings.config(), typed, ticker, random, states), group);
  }

  private void tick() {
    try {
      checker.runDue();
    } catch (RuntimeException e) {
      // a probe's bug must not end the timer: the next tick tries again
    }
  }

  /** Checks these nodes from now on (the client's endpoints after an update). */
  public void update(Collection<? extends Node<T>> nodes) {
    checker.update(nodes);
  }

  /** Returns the engine, for its counters. */
  public HealthChecker<T> checker() {
    return checker;
  }

  /** Stops the timer and every running check. */
  public void close() {
    if (timer != null) {
      timer.cancel(false);
    }
    checker.close();
  }
}
