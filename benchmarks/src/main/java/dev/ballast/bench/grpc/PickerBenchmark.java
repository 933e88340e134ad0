package dev.ballast.bench.grpc;

import dev.ballast.core.subset.RequestLabels;
import dev.ballast.grpc.EndpointAttributes;
import dev.ballast.grpc.LabelSubsetLoadBalancerProvider;
import io.grpc.Attributes;
import io.grpc.CallOptions;
import io.grpc.ClientStreamTracer;
import io.grpc.ConnectivityState;
import io.grpc.EquivalentAddressGroup;
import io.grpc.LoadBalancer;
import io.grpc.LoadBalancerProvider;
import io.grpc.LoadBalancerRegistry;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * The load balancer's cost per call: {@code pickSubchannel} plus, when the pick carries a stream
 * tracer factory (Ballast's load-aware policies and swrr, gRPC's least_request and
 * weighted_round_robin), the tracer's creation and close, which is what a real call adds. Every
 * policy is built through its registered {@link LoadBalancerProvider} over N READY fake
 * subchannels, so gRPC's own pickers (round_robin: a child pick_first per address;
 * least_request_experimental: P2C over active request counters; weighted_round_robin: a stride
 * scheduler over ORCA-reported weights, all equal here since no backend reports;
 * ring_hash_experimental: a binary search of a hash ring for the hash of a request header) run
 * exactly as in a channel.
 *
 * <p>Run: {@code java -jar benchmarks/target/benchmarks.jar PickerBenchmark -f 1 -wi 3 -w 1s -i 5
 * -r 1s -prof gc}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class PickerBenchmark {

  /**
   * The policy; {@code label_subset_header} and {@code label_subset_option} are label_subset
   * over four zones with a least_loaded child, the zone read from an {@code x-lb-zone} header or
   * from the {@code REQUEST_LABELS} call option; {@code vnswrr_weighted} is vnswrr over weights
   * 1 to 10 (seed 42; the others see these weights too but ignore them or, for least_loaded and
   * p2c_peak_ewma, divide costs by them) where plain {@code vnswrr} has equal weights and so
   * runs as round robin. The policies that pick by key ({@code ring_hash_experimental},
   * gRPC-java's ring hash, beside {@code ballast_ring_hash}, {@code ketama} and {@code maglev})
   * read it from an {@code x-key} header (gRFC A76), a different key on each of 4096 calls in
   * turn. The {@code _reported} variants of gRPC's {@code weighted_round_robin} and Ballast's
   * {@code ballast_weighted_round_robin} (lb-grpc-orca) get per-call ORCA reports in their
   * calls' trailers until their weights are in force (weights 1 to 10, seed 42; blackout 0 s,
   * update period 0.1 s), and then time the pick alone: both then hand out ORCA's per-call
   * tracer, whose cost is gRPC's and the same for both.
   */
  @Param({"round_robin", "weighted_round_robin", "least_request_experimental", "vnswrr",
      "vnswrr_weighted", "swrr", "weighted_random", "least_loaded", "p2c_peak_ewma",
      "label_subset_header", "label_subset_option", "ring_hash_experimental",
      "ballast_ring_hash", "ketama", "maglev", "ballast_weighted_round_robin",
      "weighted_round_robin_reported", "ballast_weighted_round_robin_reported"})
  public String policy;

  @Param({"10", "100", "1000"})
  public int subchannels;

  private BenchHelper helper;
  private LoadBalancer lb;
  private LoadBalancer.SubchannelPicker picker;
  private LoadBalancer.PickSubchannelArgs args;
  private final ClientStreamTracer.StreamInfo info = ClientStreamTracer.StreamInfo.newBuilder()
      .build();
  private final Metadata headers = new Metadata();

  @Setup
  public void setUp() {
    boolean subset = policy.startsWith("label_subset");
    boolean weighted = policy.equals("vnswrr_weighted");
    reported = policy.endsWith("_reported");
    String name = subset ? "label_subset" : weighted ? "vnswrr"
        : reported ? policy.substring(0, policy.length() - "_reported".length()) : policy;
    LoadBalancerProvider provider = LoadBalancerRegistry.getDefaultRegistry().getProvider(name);
    if (provider == null) {
      throw new IllegalStateException("no LoadBalancerProvider registered for " + name);
    }
    helper = new BenchHelper();
    List<EquivalentAddressGroup> groups = new ArrayList<>(subchannels);
    java.util.SplittableRandom weights = new java.util.SplittableRandom(42);
    for (int i = 0; i < subchannels; i++) {
      Attributes.Builder attributes = Attributes.newBuilder()
          .set(EndpointAttributes.LABELS, java.util.Map.of("zone", "z" + (i % 4)));
      if (weighted) {
        attributes.set(EndpointAttributes.WEIGHT, 1 + weights.nextInt(10));
      }
      groups.add(new EquivalentAddressGroup(
          new InetSocketAddress("10.0." + (i / 250) + "." + (i % 250 + 1), 443),
          attributes.build()));
    }
    java.util.Map<String, Object> raw = new java.util.HashMap<>();
    Metadata requestHeaders = new Metadata();
    CallOptions options = CallOptions.DEFAULT;
    Metadata[] keyed = null;
    if (HASHING.contains(policy)) {
      // gRPC-java reads requestHashHeader only with this flag
      System.setProperty("GRPC_EXPERIMENTAL_RING_HASH_SET_REQUEST_HASH_KEY", "true");
      raw.put("requestHashHeader", "x-key");
      keyed = new Metadata[4096];
      java.util.SplittableRandom keys = new java.util.SplittableRandom(42);
      for (int i = 0; i < keyed.length; i++) {
        keyed[i] = new Metadata();
        keyed[i].put(Metadata.Key.of("x-key", Metadata.ASCII_STRING_MARSHALLER),
            Long.toString(keys.nextLong() >>> 1, 36) + "-user");
      }
    }
    if (subset) {
      raw.put("selectors", List.of(List.of("zone")));
      raw.put("childPolicy", List.of(java.util.Map.of("least_loaded", java.util.Map.of())));
      if (policy.endsWith("header")) {
        requestHeaders.put(Metadata.Key.of("x-lb-zone", Metadata.ASCII_STRING_MARSHALLER), "z1");
      } else {
        options = options.withOption(LabelSubsetLoadBalancerProvider.REQUEST_LABELS,
            RequestLabels.of("zone", "z1"));
      }
    }
    if (reported) {
      raw.put("blackoutPeriod", "0s");
      raw.put("weightUpdatePeriod", "0.1s");
    }
    args = keyed != null ? new Args(keyed, options) : new Args(requestHeaders, options);
    Object config = provider.parseLoadBalancingPolicyConfig(raw).getConfig();
    helper.syncContext.execute(() -> {
      lb = provider.newLoadBalancer(helper);
      Status s = lb.acceptResolvedAddresses(LoadBalancer.ResolvedAddresses.newBuilder()
          .setAddresses(groups).setLoadBalancingPolicyConfig(config).build());
      if (!s.isOk()) {
        throw new IllegalStateException(policy + ": " + s);
      }
    });
    // Everything connects: CONNECTING then READY, as a real subchannel reports. gRPC's ring
    // hash makes its subchannels only when a pick lands on them: pick until all exist.
    int connected = helper.connectNew();
    for (int i = 0; i < subchannels * 100 && connected < subchannels; i++) {
      helper.picker.pickSubchannel(args);
      connected += helper.connectNew();
    }
    if (helper.state != ConnectivityState.READY) {
      throw new IllegalStateException(policy + " is " + helper.state + ", not READY");
    }
    picker = helper.picker;
    // Every subchannel must be reachable: pick until all were seen (bounded).
    java.util.Set<LoadBalancer.Subchannel> seen = new java.util.HashSet<>();
    for (int i = 0; i < subchannels * 200 && seen.size() < subchannels; i++) {
      LoadBalancer.PickResult r = callOnce();
      seen.add(r.getSubchannel());
    }
    // a ring of 2 entries per subchannel leaves some of 1000 with short arcs few keys reach
    int reachable = subset ? subchannels / 4 : HASHING.contains(policy) ? subchannels * 8 / 9
        : subchannels;
    if (seen.size() < reachable * 9 / 10) {
      throw new IllegalStateException(policy + " reached only " + seen.size() + " of "
          + subchannels + " subchannels");
    }
    if (reported) {
      ReportedWeights.feed(this, groups);
      picker = helper.picker;
    }
  }

  /** Whether the policy's weights come from ORCA reports fed in setUp; then picks are timed alone. */
  private boolean reported;

  /** Picks once and gives the call's tracer these trailers; for setUp's reports. */
  LoadBalancer.PickResult callWithTrailers(java.util.function.Function<LoadBalancer.Subchannel,
      Metadata> trailers) {
    LoadBalancer.PickResult r = helper.picker.pickSubchannel(args);
    ClientStreamTracer.Factory f = r.getStreamTracerFactory();
    if (f != null) {
      ClientStreamTracer t = f.newClientStreamTracer(info, headers);
      t.inboundTrailers(trailers.apply(r.getSubchannel()));
      t.streamClosed(Status.OK);
    }
    return r;
  }

  @TearDown
  public void tearDown() {
    helper.syncContext.execute(lb::shutdown);
  }

  LoadBalancer.PickResult callOnce() {
    LoadBalancer.PickResult r = picker.pickSubchannel(args);
    ClientStreamTracer.Factory f = r.getStreamTracerFactory();
    if (f != null) {
      f.newClientStreamTracer(info, headers).streamClosed(Status.OK);
    }
    return r;
  }

  /** One call's worth of load-balancer work: the pick and, if any, the tracer's life. */
  @Benchmark
  public Object pickAndComplete() {
    return call();
  }

  /** The benchmark's operation, for harnesses that time it themselves; returns the subchannel. */
  public Object call() {
    return reported ? picker.pickSubchannel(args).getSubchannel() : callOnce().getSubchannel();
  }

  // --- the fake channel ---

  private static final MethodDescriptor<Void, Void> METHOD = MethodDescriptor.<Void, Void>newBuilder()
      .setType(MethodDescriptor.MethodType.UNARY)
      .setFullMethodName("bench.Service/Call")
      .setRequestMarshaller(NoMarshaller.INSTANCE)
      .setResponseMarshaller(NoMarshaller.INSTANCE)
      .build();

  private static final java.util.Set<String> HASHING = java.util.Set.of(
      "ring_hash_experimental", "ballast_ring_hash", "ketama", "maglev");

  /** A call's arguments; with several header sets, each call takes the next (one thread). */
  private static final class Args extends LoadBalancer.PickSubchannelArgs {
    private final Metadata[] headers;
    private final CallOptions options;
    private int next;

    Args(Metadata headers, CallOptions options) {
      this(new Metadata[] {headers}, options);
    }

    Args(Metadata[] headers, CallOptions options) {
      this.headers = headers;
      this.options = options;
    }

    @Override
    public CallOptions getCallOptions() {
      return options;
    }

    @Override
    public Metadata getHeaders() {
      return headers.length == 1 ? headers[0] : headers[next++ & (headers.length - 1)];
    }

    @Override
    public MethodDescriptor<?, ?> getMethodDescriptor() {
      return METHOD;
    }
  }

  private enum NoMarshaller implements MethodDescriptor.Marshaller<Void> {
    INSTANCE;

    @Override
    public InputStream stream(Void value) {
      return InputStream.nullInputStream();
    }

    @Override
    public Void parse(InputStream stream) {
      return null;
    }
  }
}
