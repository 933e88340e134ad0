package dev.ballast.netty.framed;

import dev.ballast.core.load.EndpointLoadMetrics;
import dev.ballast.core.load.LoadReport;
import io.netty.channel.EventLoopGroup;
import java.lang.management.ManagementFactory;
import java.lang.management.OperatingSystemMXBean;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.DoubleSupplier;

/**
 * What a {@link FramedServer} reports of its load ({@link Frame#LOAD_REPORT}): a fixed report,
 * or one sampled every period from a utilization source and the answers and errors the server
 * sent over it (qps and eps), as a gRPC server's ORCA reports. The report's bytes are made once
 * per sample, so answering a request that asks for one allocates only its frame.
 */
final class ServerLoad {

  private final DoubleSupplier utilization; // null: a fixed report
  private final long periodNanos;
  private final LongAdder answers = new LongAdder();
  private final LongAdder errors = new LongAdder();
  private volatile byte[] report;
  private static final System.Logger LOG = System.getLogger("dev.ballast.netty.load");
  private long lastSample; // the sampling task's
  private boolean warned; // the sampling task's
  private ScheduledFuture<?> task;

  private ServerLoad(DoubleSupplier utilization, long periodNanos, byte[] report) {
    this.utilization = utilization;
    this.periodNanos = periodNanos;
    this.report = report;
  }

  static ServerLoad fixed(LoadReport report) {
    return new ServerLoad(null, 0, bytes(report));
  }

  static ServerLoad sampled(DoubleSupplier utilization, long periodNanos) {
    return new ServerLoad(utilization, periodNanos, null);
  }

  /** Starts sampling on one of the server's event loops. */
  synchronized void start(EventLoopGroup group) {
    if (utilization != null) {
      lastSample = System.nanoTime();
      task = group.next().scheduleAtFixedRate(this::sample, periodNanos, periodNanos,
          TimeUnit.NANOSECONDS);
    }
  }

  /** Stops sampling; the last report stays. */
  synchronized void stop() {
    if (task != null) {
      task.cancel(false);
    }
  }

  /** Counts one answer. */
  void answered(boolean error) {
    answers.increment();
    if (error) {
      errors.increment();
    }
  }

  /** Returns the report's bytes (Envoy's text form), or null before the first sample. */
  byte[] report() {
    return report;
  }

  void sample() { // package-private for tests
    long now = System.nanoTime();
    double seconds = Math.max(1e-9, (now - lastSample) / 1e9);
    lastSample = now;
    double qps = answers.sumThenReset() / seconds;
    double eps = errors.sumThenReset() / seconds;
    double u;
    try {
      u = utilization.getAsDouble();
    } catch (RuntimeException e) {
      // the task must go on (a periodic task that throws is never run again), and a frozen
      // report would be taken for a fresh one: none until the next good sample
      report = null;
      if (!warned) {
        warned = true;
        LOG.log(System.Logger.Level.WARNING, "the load report's utilization source failed; "
            + "no report is sent until it answers", e);
      }
      return;
    }
    // above 1 is kept (A51: past a soft limit); a bad value sends none rather than a 0, which a
    // client would read as no report and weigh as the mean
    report = u >= 0 && u <= LoadReport.MAX_UTILIZATION ? bytes(LoadReport.of(u, qps, eps)) : null;
  }

  private static byte[] bytes(LoadReport r) {
    byte[] b = EndpointLoadMetrics.text(r).getBytes(StandardCharsets.UTF_8);
    if (b.length > Frame.MAX_LOAD_REPORT_BYTES) {
      throw new IllegalArgumentException("report: " + b.length + " bytes (expected: <= "
          + Frame.MAX_LOAD_REPORT_BYTES + ")");
    }
    return b;
  }

  /**
   * The process's CPU load from the JVM ({@code getProcessCpuLoad()}: the share of all the
   * machine's CPUs this process used, in [0, 1]), or -1 where the JVM does not say.
   */
  static double processCpuLoad() {
    OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
    return os instanceof com.sun.management.OperatingSystemMXBean sun
        ? sun.getProcessCpuLoad() : -1;
  }
}
