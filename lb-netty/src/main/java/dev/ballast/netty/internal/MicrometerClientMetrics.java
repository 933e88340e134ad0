package dev.ballast.netty.internal;

import dev.ballast.core.source.EndpointFeed;
import dev.ballast.netty.error.AcquireTimeoutException;
import dev.ballast.netty.error.ClientClosedException;
import dev.ballast.netty.error.ConnectFailedException;
import dev.ballast.netty.error.ConnectionClosedException;
import dev.ballast.netty.error.DeadlineExceededException;
import dev.ballast.netty.error.PoolClosedException;
import dev.ballast.netty.error.PoolOverflowException;
import dev.ballast.netty.error.ProtocolErrorException;
import dev.ballast.netty.error.RemoteException;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Micrometer meters of a client, all under {@code ballast.client.} and tagged {@code client}:
 *
 * <ul>
 *   <li>{@code ballast.client.requests} (counter; tags endpoint, outcome=success|
 *       failed_response|deadline|refused|overflow|...) — attempts by classified outcome
 *   <li>{@code ballast.client.latency} (timer; tag endpoint) — attempt latency
 *   <li>{@code ballast.client.calls} (timer; tag outcome) — whole calls, retries included
 *   <li>{@code ballast.client.pending} (gauge; endpoint) — balancer pending count
 *   <li>{@code ballast.client.connections} (gauge; endpoint, state=active|idle)
 *   <li>{@code ballast.client.acquires.pending} (gauge; endpoint)
 *   <li>{@code ballast.client.health} (gauge; endpoint) — 0 healthy, 1 degraded, 2 unhealthy (the
 *       registry's label and the active checks' verdict together)
 *   <li>{@code ballast.client.retries}, {@code ballast.client.retries.budget.exhausted} (counters)
 *   <li>{@code ballast.client.hedges}, {@code ballast.client.hedges.won} (counters)
 *   <li>{@code ballast.client.ejections} (counter; endpoint)
 * </ul>
 *
 * <p>With an endpoint source, beside them and tagged {@code client} and {@code source} (e.g.
 * {@code etcd:/services/orders/}):
 *
 * <ul>
 *   <li>{@code ballast.source.endpoints} (gauge) — endpoints the client holds from the source
 *   <li>{@code ballast.source.updates} (counter) — changes applied
 *   <li>{@code ballast.source.rejected} (counter) — entries skipped (malformed, duplicate...)
 *   <li>{@code ballast.source.up} (gauge, 1 or 0) — whether the source is connected and current
 *   <li>{@code ballast.source.staleness} (gauge, seconds) — since the source was last current
 * </ul>
 *
 * <p>The latency and call timers publish count, sum and max only, so that a scrape stays small
 * (a histogram is about 70 buckets per endpoint). An application asks Micrometer for histograms
 * (its fixed buckets, the same in every process, which a backend such as Prometheus sums
 * across instances before taking quantiles) with a {@code MeterFilter} or Spring Boot's {@code
 * management.metrics.distribution.percentiles-histogram.ballast.client=true}; for percentiles
 * computed in the process, which cannot be combined, with {@code
 * management.metrics.distribution.percentiles.ballast.client=0.5,0.99}.
 *
 * <p>Only loaded when a registry is configured, so Micrometer stays optional.
 */
public final class MicrometerClientMetrics implements ClientMetrics {

  private final MeterRegistry registry;
  private final Tags tags;
  private final Counter retries;
  private final Counter exhausted;
  private final Counter hedges;
  private final Counter hedgesWon;
  private final Timer callsOk;
  private final Timer callsFailed;

  private MicrometerClientMetrics(MeterRegistry registry, String client) {
    this.registry = registry;
    this.tags = Tags.of("client", client);
    this.retries = Counter.builder("ballast.client.retries").tags(tags)
        .description("retried attempts").register(registry);
    this.exhausted = Counter.builder("ballast.client.retries.budget.exhausted").tags(tags)
        .description("retries refused by the retry budget").register(registry);
    this.hedges = Counter.builder("ballast.client.hedges").tags(tags)
        .description("hedges (backup requests) sent").register(registry);
    this.hedgesWon = Counter.builder("ballast.client.hedges.won").tags(tags)
        .description("hedges whose answer ended their call").register(registry);
    this.callsOk = callTimer("success");
    this.callsFailed = callTimer("failure");
  }

  private Timer callTimer(String outcome) {
    return Timer.builder("ballast.client.calls").tags(tags).tag("outcome", outcome)
        .register(registry);
  }

  public static void check(Object registry) {
    if (!(registry instanceof MeterRegistry)) {
      throw new IllegalArgumentException("meterRegistry: " + registry.getClass().getName()
          + " (expected: an io.micrometer.core.instrument.MeterRegistry)");
    }
  }

  static ClientMetrics create(Object registry, String client) {
    return new MicrometerClientMetrics((MeterRegistry) registry, client);
  }

  @Override
  public void retry() {
    retries.increment();
  }

  @Override
  public void budgetExhausted() {
    exhausted.increment();
  }

  @Override
  public void hedge() {
    hedges.increment();
  }

  @Override
  public void hedgeWon() {
    hedgesWon.increment();
  }

  @Override
  public void call(boolean success, long latencyNanos) {
    (success ? callsOk : callsFailed).record(latencyNanos, TimeUnit.NANOSECONDS);
  }

  @Override
  public void source(EndpointFeed feed) {
    Tags st = tags.and("source", feed.name());
    Gauge.builder("ballast.source.endpoints", feed, EndpointFeed::endpointCount).tags(st)
        .description("endpoints held from the source").register(registry);
    FunctionCounter.builder("ballast.source.updates", feed, EndpointFeed::updatesApplied)
        .tags(st).description("changes applied from the source").register(registry);
    FunctionCounter.builder("ballast.source.rejected", feed, EndpointFeed::entriesRejected)
        .tags(st).description("source entries skipped").register(registry);
    Gauge.builder("ballast.source.up", feed, f -> f.isUp() ? 1 : 0).tags(st)
        .description("1 while the source is connected and current").register(registry);
    Gauge.builder("ballast.source.staleness", feed, EndpointFeed::stalenessSeconds).tags(st)
        .baseUnit("seconds").description("seconds since the source was last current")
        .register(registry);
  }

  @Override
  public ForEndpoint endpoint(EndpointClient<?, ?> ep) {
    return new PerEndpoint(ep);
  }

  private final class PerEndpoint implements ForEndpoint {
    private final Tags et;
    private final List<Meter> meters = new ArrayList<>();
    private final Counter ok;
    private final Timer latency;
    private final Counter ejections;

    PerEndpoint(EndpointClient<?, ?> ep) {
      this.et = tags.and("endpoint", ep.address);
      ConnectionPool<?, ?> pool = ep.pool;
      ok = add(Counter.builder("ballast.client.requests").tags(et).tag("outcome", "success")
          .register(registry));
      latency = add(Timer.builder("ballast.client.latency").tags(et).register(registry));
      ejections = add(Counter.builder("ballast.client.ejections").tags(et).register(registry));
      add(Gauge.builder("ballast.client.pending", ep,
          e -> e.node == null ? 0 : e.node.pending()).tags(et).register(registry));
      add(Gauge.builder("ballast.client.connections", pool, p -> p.connections()
          - p.idleConnections()).tags(et).tag("state", "active").register(registry));
      add(Gauge.builder("ballast.client.connections", pool, ConnectionPool::idleConnections)
          .tags(et).tag("state", "idle").register(registry));
      add(Gauge.builder("ballast.client.acquires.pending", pool,
          ConnectionPool::pendingAcquires).tags(et).register(registry));
      add(Gauge.builder("ballast.client.health", ep, e -> (e.node == null
          ? e.endpoint.health() : e.node.health()).ordinal()).tags(et).register(registry));
    }

    private <M extends Meter> M add(M m) {
      meters.add(m);
      return m;
    }

    @Override
    public void success(long latencyNanos) {
      ok.increment();
      latency.record(latencyNanos, TimeUnit.NANOSECONDS);
    }

    @Override
    public void failure(long latencyNanos, Throwable cause) {
      Counter c = Counter.builder("ballast.client.requests").tags(et)
          .tag("outcome", outcome(cause)).register(registry);
      c.increment();
      latency.record(latencyNanos, TimeUnit.NANOSECONDS);
    }

    @Override
    public void ejected() {
      ejections.increment();
    }

    @Override
    public void close() {
      for (Meter m : meters) {
        registry.remove(m);
      }
      for (String o : new String[] {"failure", "failed_response", "refused", "overflow",
          "acquire_timeout", "closed", "protocol_error", "remote_error", "deadline",
          "pool_closed", "client_closed"}) {
        Meter m = registry.find("ballast.client.requests").tags(et).tag("outcome", o).counter();
        if (m != null) {
          registry.remove(m);
        }
      }
    }
  }

  private static String outcome(Throwable cause) {
    if (cause instanceof ConnectFailedException) {
      return "refused";
    } else if (cause instanceof PoolOverflowException) {
      return "overflow";
    } else if (cause instanceof AcquireTimeoutException) {
      return "acquire_timeout";
    } else if (cause instanceof ConnectionClosedException) {
      return "closed";
    } else if (cause instanceof ProtocolErrorException) {
      return "protocol_error";
    } else if (cause instanceof RemoteException) {
      return "remote_error";
    } else if (cause instanceof PoolClosedException) {
      return "pool_closed";
    } else if (cause instanceof DeadlineExceededException) {
      return "deadline";
    } else if (cause instanceof ClientClosedException) {
      return "client_closed";
    } else if (cause == null) {
      return "failed_response";
    }
    return "failure";
  }
}
