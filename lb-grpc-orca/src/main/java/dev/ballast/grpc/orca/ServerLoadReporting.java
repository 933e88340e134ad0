package dev.ballast.grpc.orca;

import io.grpc.ForwardingServerCall.SimpleForwardingServerCall;
import io.grpc.Metadata;
import io.grpc.ServerBuilder;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import io.grpc.services.MetricRecorder;
import io.grpc.xds.orca.OrcaMetricReportingServerInterceptor;
import io.grpc.xds.orca.OrcaServiceImpl;
import java.lang.management.ManagementFactory;
import java.lang.management.OperatingSystemMXBean;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.DoubleSupplier;

/**
 * Makes a gRPC server report its load as ORCA (gRFC A51) in one line, for clients balancing with
 * {@code ballast_weighted_round_robin}, {@code p2c_utilization} or gRPC's own {@code
 * weighted_round_robin}:
 *
 * <pre>{@code
 * ServerLoadReporting reporting = ServerLoadReporting.install(serverBuilder);
 * }</pre>
 *
 * <p>Once a {@linkplain #DEFAULT_SAMPLE_PERIOD second} (on a daemon thread of its own) it reads
 * the process's CPU utilization from the JVM ({@code com.sun.management.OperatingSystemMXBean
 * .getProcessCpuLoad()}, the share of all the machine's CPUs this process used, in [0, 1]), and
 * the queries and errors per second the server answered over that second (an error: a call that
 * ended with a status other than OK), into a grpc-services {@link MetricRecorder}. Every call's
 * trailers then carry them ({@code endpoint-load-metrics-bin}, through grpc-xds's {@link
 * OrcaMetricReportingServerInterceptor}), and the out-of-band service {@code
 * xds.service.orca.v3.OpenRcaService} streams them to clients that ask (at most once a second).
 * Add other metrics through {@link #recorder()}. {@link #close()} stops the sampling.
 */
public final class ServerLoadReporting implements AutoCloseable {

  /** How often utilization, qps and eps are sampled by default: 1 s. */
  public static final Duration DEFAULT_SAMPLE_PERIOD = Duration.ofSeconds(1);

  private final MetricRecorder recorder = MetricRecorder.newInstance();
  private final LongAdder calls = new LongAdder();
  private final LongAdder errors = new LongAdder();
  private final ScheduledExecutorService scheduler;
  private final DoubleSupplier utilization;
  private long lastSample = System.nanoTime();

  private ServerLoadReporting(DoubleSupplier utilization, Duration period) {
    this.utilization = utilization;
    this.scheduler = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "ballast-load-reporting");
      t.setDaemon(true);
      return t;
    });
    long nanos = period.toNanos();
    scheduler.scheduleAtFixedRate(this::sample, nanos, nanos, TimeUnit.NANOSECONDS);
  }

  /**
   * Installs load reporting on the server being built: CPU utilization from the JVM, qps and
   * eps, sampled once a second.
   */
  public static ServerLoadReporting install(ServerBuilder<?> builder) {
    return install(builder, ServerLoadReporting::processCpuLoad, DEFAULT_SAMPLE_PERIOD);
  }

  /**
   * Installs load reporting with another utilization source (an application's own measure of
   * how busy it is, in [0, 1]; values outside are not reported) sampled every {@code period}.
   *
   * @throws IllegalArgumentException if the period is not positive
   */
  public static ServerLoadReporting install(ServerBuilder<?> builder, DoubleSupplier utilization,
      Duration period) {
    Objects.requireNonNull(builder, "builder");
    Objects.requireNonNull(utilization, "utilization");
    Objects.requireNonNull(period, "period");
    if (period.isNegative() || period.isZero()) {
      throw new IllegalArgumentException("period: " + period + " (expected: > 0)");
    }
    ServerLoadReporting r = new ServerLoadReporting(utilization, period);
    builder.addService(OrcaServiceImpl.createService(r.scheduler, r.recorder, 1,
        TimeUnit.SECONDS));
    builder.intercept(OrcaMetricReportingServerInterceptor.create(r.recorder));
    builder.intercept(r.new Counting());
    return r;
  }

  /** Returns the recorder the reports are read from, to add named utilizations. */
  public MetricRecorder recorder() {
    return recorder;
  }

  /** Stops sampling; the last values stay in the reports. */
  @Override
  public void close() {
    scheduler.shutdownNow();
  }

  private void sample() {
    long now = System.nanoTime();
    double seconds = Math.max(1e-9, (now - lastSample) / 1e9);
    lastSample = now;
    recorder.setQpsMetric(calls.sumThenReset() / seconds);
    recorder.setEpsMetric(errors.sumThenReset() / seconds);
    double u = utilization.getAsDouble();
    if (u >= 0 && u <= 1) {
      recorder.setCpuUtilizationMetric(u);
    }
  }

  /** The process's CPU load from the JVM, or -1 where the JVM does not say. */
  static double processCpuLoad() {
    OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
    if (os instanceof com.sun.management.OperatingSystemMXBean sun) {
      return sun.getProcessCpuLoad();
    }
    return -1;
  }

  /** Counts calls and errors as they close. */
  private final class Counting implements ServerInterceptor {
    @Override
    public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers,
        ServerCallHandler<Q, R> next) {
      return next.startCall(new SimpleForwardingServerCall<>(call) {
        @Override
        public void close(Status status, Metadata trailers) {
          calls.increment();
          if (!status.isOk()) {
            errors.increment();
          }
          super.close(status, trailers);
        }
      }, headers);
    }
  }
}
