package dev.ballast.grpc.internal;

import dev.ballast.core.Node;
import io.grpc.ConnectivityState;
import io.grpc.LoadBalancer.Helper;
import io.grpc.LoadBalancer.PickResult;
import io.grpc.LoadBalancer.PickSubchannelArgs;
import io.grpc.LoadBalancer.SubchannelPicker;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Metrics;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.TimeGauge;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

/**
 * A policy's meters in Micrometer's global registry ({@link Metrics#globalRegistry}, where Spring
 * Boot adds its registries), beside lb-netty's {@code ballast.client.*}; tagged {@code target}
 * (the channel's authority, at most 100 characters, never its endpoint list) and {@code policy}:
 *
 * <ul>
 *   <li>{@code ballast.grpc.picks} (function counter; tag endpoint): picks that went to it; only
 *       when {@value PolicyMetrics#ENDPOINT_PICKS_PROPERTY} is true (off by default)
 *   <li>{@code ballast.grpc.pending} (gauge; endpoint): picked calls not yet ended
 *   <li>{@code ballast.grpc.rtt} (time gauge; endpoint): the peak-EWMA RTT estimate, with
 *       {@code p2c_peak_ewma} (as the child of {@code label_subset} too)
 *   <li>{@code ballast.grpc.subchannels} (gauge; state=ready|connecting|idle|transient_failure)
 *   <li>{@code ballast.grpc.picks.queued} (function counter): picks that got no subchannel and
 *       waited for the next picker (connecting)
 *   <li>{@code ballast.grpc.picks.failed} (function counter): picks that failed the call
 *       (UNAVAILABLE: every subchannel failed, no address, no matching subset, a pick that
 *       threw)
 * </ul>
 *
 * <p>Picks are counted by the pickers in {@link LongAdder}s that the counters read, so a pick pays
 * an add and never a Micrometer lookup; with the per-endpoint count off (the default), the
 * pickers add nothing on a pick that gets a subchannel. The meters leave the registry when the
 * policy shuts down.
 */
final class MicrometerPolicyMetrics implements PolicyMetrics {

  private static final ConnectivityState[] COUNTED = {ConnectivityState.READY,
      ConnectivityState.CONNECTING, ConnectivityState.IDLE, ConnectivityState.TRANSIENT_FAILURE};

  private final MeterRegistry registry;
  private final Tags tags;
  private final boolean endpointPicks;
  private final LongAdder queued = new LongAdder();
  private final LongAdder failed = new LongAdder();
  private final Map<ConnectivityState, AtomicInteger> states =
      new EnumMap<>(ConnectivityState.class);
  private final List<Meter> meters = new ArrayList<>();
  private final Map<Backend, List<Meter>> perBackend = new HashMap<>();

  private MicrometerPolicyMetrics(MeterRegistry registry, Tags tags, boolean endpointPicks) {
    this.registry = registry;
    this.tags = tags;
    this.endpointPicks = endpointPicks;
    meters.add(FunctionCounter.builder("ballast.grpc.picks.queued", queued, LongAdder::sum)
        .tags(tags).description("picks that waited for a READY subchannel").register(registry));
    meters.add(FunctionCounter.builder("ballast.grpc.picks.failed", failed, LongAdder::sum)
        .tags(tags).description("picks that failed their call").register(registry));
    for (ConnectivityState s : COUNTED) {
      AtomicInteger count = new AtomicInteger();
      states.put(s, count);
      meters.add(Gauge.builder("ballast.grpc.subchannels", count, AtomicInteger::get)
          .tags(tags).tag("state", s.name().toLowerCase(Locale.ROOT)).strongReference(true)
          .description("subchannels by connectivity state").register(registry));
    }
  }

  /** Creates the meters of a policy; {@code endpointPicks} adds {@code ballast.grpc.picks}. */
  static PolicyMetrics create(Helper helper, String policy, boolean endpointPicks) {
    return new MicrometerPolicyMetrics(Metrics.globalRegistry,
        Tags.of("target", target(helper), "policy", policy), endpointPicks);
  }

  /**
   * The channel's authority, at most 100 characters: a bounded tag (a {@code ballast:///} target
   * lists every endpoint, and Prometheus keeps a series per distinct value).
   */
  private static String target(Helper helper) {
    String a = helper.getAuthority();
    return a.length() <= 100 ? a : a.substring(0, 100);
  }

  @Override
  public void added(Backend b) {
    Tags et = tags.and("endpoint", b.address);
    List<Meter> list = new ArrayList<>(3);
    if (endpointPicks) {
      b.picks = new LongAdder();
      list.add(FunctionCounter.builder("ballast.grpc.picks", b.picks, LongAdder::sum).tags(et)
          .description("picks that went to the endpoint").register(registry));
    }
    list.add(Gauge.builder("ballast.grpc.pending", b, MicrometerPolicyMetrics::pending).tags(et)
        .strongReference(true).description("picked calls not yet ended").register(registry));
    perBackend.put(b, list);
    stateChanged(null, b.state);
  }

  @Override
  public void bound(Backend b, boolean tracksRtt) {
    List<Meter> list = perBackend.get(b);
    // once per backend: a bind again (the balancer rebuilt) finds the gauge there
    if (tracksRtt && list != null && list.stream().noneMatch(m -> m instanceof TimeGauge)) {
      list.add(TimeGauge.builder("ballast.grpc.rtt", b, TimeUnit.NANOSECONDS,
              MicrometerPolicyMetrics::rtt).tags(tags.and("endpoint", b.address))
          .strongReference(true).description("peak-EWMA RTT estimate").register(registry));
    }
  }

  private static double pending(Backend b) {
    Node<Backend> n = b.node();
    return n == null ? 0 : n.pending();
  }

  private static double rtt(Backend b) {
    Node<Backend> n = b.node();
    double nanos = n == null ? -1 : n.rttEstimateNanos();
    return nanos < 0 ? Double.NaN : nanos;
  }

  @Override
  public void stateChanged(ConnectivityState from, ConnectivityState to) {
    AtomicInteger before = from == null ? null : states.get(from);
    AtomicInteger after = to == null ? null : states.get(to);
    if (before != null) {
      before.decrementAndGet();
    }
    if (after != null) {
      after.incrementAndGet();
    }
  }

  @Override
  public void removed(Backend b) {
    List<Meter> list = perBackend.remove(b);
    if (list != null) {
      list.forEach(registry::remove);
      stateChanged(b.state, null);
    }
  }

  @Override
  public LongAdder queuedPicks() {
    return queued;
  }

  @Override
  public LongAdder failedPicks() {
    return failed;
  }

  @Override
  public SubchannelPicker counting(SubchannelPicker picker) {
    return new CountingPicker(picker, queued, failed);
  }

  @Override
  public void close() {
    for (Backend b : List.copyOf(perBackend.keySet())) {
      removed(b);
    }
    meters.forEach(registry::remove);
    meters.clear();
  }

  /** Counts the picks of the published picker that got no subchannel. */
  private static final class CountingPicker extends SubchannelPicker {
    private final SubchannelPicker delegate;
    private final LongAdder queued;
    private final LongAdder failed;

    CountingPicker(SubchannelPicker delegate, LongAdder queued, LongAdder failed) {
      this.delegate = delegate;
      this.queued = queued;
      this.failed = failed;
    }

    @Override
    public PickResult pickSubchannel(PickSubchannelArgs args) {
      PickResult r = delegate.pickSubchannel(args);
      if (r.getSubchannel() == null) {
        (r.getStatus().isOk() ? queued : failed).increment();
      }
      return r;
    }

    @Override
    public String toString() {
      return delegate.toString();
    }
  }
}
