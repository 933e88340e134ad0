package dev.ballast.grpc.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.ballast.core.Algorithm;
import dev.ballast.core.Availability;
import dev.ballast.core.BalancerConfig;
import dev.ballast.core.policy.ConfiguredPolicy;
import dev.ballast.core.Node;
import dev.ballast.grpc.EndpointAttributes;
import dev.ballast.grpc.internal.FakeHelper.FakeSubchannel;
import io.grpc.Attributes;
import io.grpc.CallOptions;
import io.grpc.ClientStreamTracer;
import io.grpc.ConnectivityState;
import io.grpc.EquivalentAddressGroup;
import io.grpc.LoadBalancer;
import io.grpc.LoadBalancer.PickResult;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The gRPC LB contract of the algorithm policies, driven through a fake channel helper. */
class BalancerLoadBalancerTest {

  private final FakeHelper helper = new FakeHelper();
  private final AtomicLong now = new AtomicLong(1_000_000_000L);
  private final BalancerConfig base = BalancerConfig.builder()
      .ticker(now::get)
      .random(new SplittableRandom(42))
      .build();

  private BalancerLoadBalancer lb(Algorithm algorithm) {
    return lb(helper, algorithm);
  }

  private BalancerLoadBalancer lb(FakeHelper h, Algorithm algorithm) {
    return BalancerLoadBalancer.of(h, ConfiguredPolicy.named(algorithm.id()), algorithm.id(),
        base);
  }

  static EquivalentAddressGroup group(int port, int weight, Map<String, String> labels) {
    return new EquivalentAddressGroup(new InetSocketAddress("127.0.0.1", port),
        Attributes.newBuilder().set(EndpointAttributes.WEIGHT, weight)
            .set(EndpointAttributes.LABELS, labels).build());
  }

  static EquivalentAddressGroup group(int port) {
    return new EquivalentAddressGroup(new InetSocketAddress("127.0.0.1", port));
  }

  private Status accept(LoadBalancer lb, Object config, EquivalentAddressGroup... groups) {
    Status[] out = new Status[1];
    helper.syncContext.execute(() -> out[0] = lb.acceptResolvedAddresses(
        LoadBalancer.ResolvedAddresses.newBuilder()
            .setAddresses(List.of(groups))
            .setLoadBalancingPolicyConfig(config)
            .build()));
    return out[0];
  }

  private Status accept(LoadBalancer lb, EquivalentAddressGroup... groups) {
    return accept(lb, null, groups);
  }

  private void set(FakeSubchannel s, ConnectivityState state) {
    helper.syncContext.execute(() -> s.set(state));
  }

  static final LoadBalancer.PickSubchannelArgs ARGS = args(MethodDescriptor.MethodType.UNARY);

  /** A call of the given type, no headers, default options. */
  static LoadBalancer.PickSubchannelArgs args(MethodDescriptor.MethodType type) {
    MethodDescriptor<Void, Void> method = MethodDescriptor.<Void, Void>newBuilder()
        .setType(type)
        .setFullMethodName("test.Service/Call")
        .setRequestMarshaller(VoidMarshaller.INSTANCE)
        .setResponseMarshaller(VoidMarshaller.INSTANCE)
        .build();
    return new LoadBalancer.PickSubchannelArgs() {
      @Override
      public CallOptions getCallOptions() {
        return CallOptions.DEFAULT;
      }

      @Override
      public Metadata getHeaders() {
        return new Metadata();
      }

      @Override
      public MethodDescriptor<?, ?> getMethodDescriptor() {
        return method;
      }
    };
  }

  private enum VoidMarshaller implements MethodDescriptor.Marshaller<Void> {
    INSTANCE;

    @Override
    public java.io.InputStream stream(Void value) {
      return java.io.InputStream.nullInputStream();
    }

    @Override
    public Void parse(java.io.InputStream stream) {
      return null;
    }
  }

  private PickResult pick() {
    return helper.picker.pickSubchannel(ARGS);
  }

  private static int pendingSum(BalancerLoadBalancer lb) {
    int sum = 0;
    for (Node<Backend> n : lb.balancer().nodes()) {
      sum += n.pending();
    }
    return sum;
  }

  @Test
  void emptyAddressListIsReturnedAsUnavailable() {
    BalancerLoadBalancer lb = lb(Algorithm.VNSWRR);

    Status status = accept(lb);

    assertThat(status.getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(status.getDescription()).contains("no addresses");
    assertThat(helper.state).isEqualTo(ConnectivityState.TRANSIENT_FAILURE);
    assertThat(pick().getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
  }

  @Test
  void oneSubchannelPerGroupConnectedAtOnceAndPicksWaitWhileConnecting() {
    BalancerLoadBalancer lb = lb(Algorithm.VNSWRR);

    assertThat(accept(lb, group(1001), group(1002), group(1003)).isOk()).isTrue();

    assertThat(helper.subchannels).hasSize(3);
    assertThat(helper.subchannels).allSatisfy(s -> {
      assertThat(s.connectionRequests).isEqualTo(1);
      assertThat(s.listener).isNotNull();
    });
    assertThat(helper.state).isEqualTo(ConnectivityState.CONNECTING);
    PickResult r = pick();
    assertThat(r.hasResult()).isFalse();
    assertThat(r.getStatus().isOk()).isTrue();
    assertThat(lb.balancer().nodes())
        .allSatisfy(n -> assertThat(n.availability()).isEqualTo(Availability.BUSY));
  }

  @Test
  void onlyReadySubchannelsArePicked() {
    BalancerLoadBalancer lb = lb(Algorithm.LEAST_LOADED);
    accept(lb, group(1001), group(1002), group(1003));
    FakeSubchannel a = helper.subchannel(1001);
    FakeSubchannel b = helper.subchannel(1002);
    FakeSubchannel c = helper.subchannel(1003);

    set(a, ConnectivityState.READY);
    helper.syncContext.execute(() -> c.fail(Status.UNAVAILABLE.withDescription("refused")));

    assertThat(helper.state).isEqualTo(ConnectivityState.READY);
    for (int i = 0; i < 1_000; i++) {
      PickResult r = pick();
      assertThat(r.getSubchannel()).isSameAs(a);
      ClientStreamTracer t = r.getStreamTracerFactory().newClientStreamTracer(
          ClientStreamTracer.StreamInfo.newBuilder().build(), new Metadata());
      t.streamClosed(Status.OK);
    }
    assertThat(lb.backends().get("127.0.0.1:1001").node().availability())
        .isEqualTo(Availability.OPEN);
    assertThat(lb.backends().get("127.0.0.1:1002").node().availability())
        .isEqualTo(Availability.BUSY);
    assertThat(lb.backends().get("127.0.0.1:1003").node().availability())
        .isEqualTo(Availability.CLOSED);
    assertThat(b.shutdown).isFalse();
    assertThat(pendingSum(lb)).isZero();
  }

  @Test
  void idleAsksForAConnectionAndRefreshesResolution() {
    BalancerLoadBalancer lb = lb(Algorithm.VNSWRR);
    accept(lb, group(1001), group(1002));
    FakeSubchannel a = helper.subchannel(1001);
    set(a, ConnectivityState.READY);
    set(helper.subchannel(1002), ConnectivityState.READY);

    set(a, ConnectivityState.IDLE);

    assertThat(a.connectionRequests).isEqualTo(2);
    assertThat(helper.refreshes).isEqualTo(1);
    assertThat(lb.backends().get("127.0.0.1:1001").node().availability())
        .isEqualTo(Availability.BUSY);
    for (int i = 0; i < 100; i++) {
      assertThat(pick().getSubchannel()).isSameAs(helper.subchannel(1002));
    }
  }

  @Test
  void transientFailureIsStickyUntilReadyAndAllFailedFailsPicks() {
    BalancerLoadBalancer lb = lb(Algorithm.P2C_PEAK_EWMA);
    accept(lb, group(1001), group(1002));
    FakeSubchannel a = helper.subchannel(1001);
    FakeSubchannel b = helper.subchannel(1002);

    helper.syncContext.execute(() -> a.fail(Status.UNAVAILABLE.withDescription("refused a")));
    helper.syncContext.execute(() -> b.fail(Status.UNAVAILABLE.withDescription("refused b")));

    assertThat(helper.refreshes).isEqualTo(2);
    assertThat(helper.state).isEqualTo(ConnectivityState.TRANSIENT_FAILURE);
    PickResult failed = pick();
    assertThat(failed.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(failed.getStatus().getDescription()).contains("no READY subchannel among 2")
        .contains("refused b");

    set(a, ConnectivityState.CONNECTING); // reconnect attempt: still failed as far as we care
    assertThat(helper.state).isEqualTo(ConnectivityState.TRANSIENT_FAILURE);
    assertThat(lb.backends().get("127.0.0.1:1001").node().availability())
        .isEqualTo(Availability.CLOSED);

    set(a, ConnectivityState.READY);
    assertThat(helper.state).isEqualTo(ConnectivityState.READY);
    assertThat(pick().getSubchannel()).isSameAs(a);
  }

  @Test
  void streamCloseEndsThePendingRequestAndFeedsLatency() {
    BalancerLoadBalancer lb = lb(Algorithm.P2C_PEAK_EWMA);
    accept(lb, group(1001));
    set(helper.subchannel(1001), ConnectivityState.READY);
    Node<Backend> node = lb.backends().get("127.0.0.1:1001").node();
    double before = node.rttEstimateNanos();

    PickResult r = pick();
    assertThat(node.pending()).isZero(); // counted when the stream starts
    ClientStreamTracer t = r.getStreamTracerFactory().newClientStreamTracer(
        ClientStreamTracer.StreamInfo.newBuilder().build(), new Metadata());
    assertThat(node.pending()).isEqualTo(1);
    now.addAndGet(250_000_000L); // the call takes 250 ms
    t.streamClosed(Status.OK);

    assertThat(node.pending()).isZero();
    assertThat(before).isEqualTo(30_000_000d); // defaultRtt
    assertThat(node.rttEstimateNanos()).isEqualTo(250_000_000d); // the peak is taken at once
  }

  @Test
  void streamingCallsCountAsPendingButTheirLengthIsNoLatency() {
    BalancerLoadBalancer lb = lb(Algorithm.P2C_PEAK_EWMA);
    accept(lb, group(1001));
    set(helper.subchannel(1001), ConnectivityState.READY);
    Node<Backend> node = lb.backends().get("127.0.0.1:1001").node();

    PickResult r = helper.picker.pickSubchannel(args(MethodDescriptor.MethodType.SERVER_STREAMING));
    ClientStreamTracer t = r.getStreamTracerFactory().newClientStreamTracer(
        ClientStreamTracer.StreamInfo.newBuilder().build(), new Metadata());
    assertThat(node.pending()).isEqualTo(1);
    now.addAndGet(10_000_000_000L); // a 10 s stream
    t.streamClosed(Status.OK);

    assertThat(node.pending()).isZero();
    // Only the decay of the default RTT over tau (10 s): no 10 s peak.
    assertThat(node.rttEstimateNanos()).isCloseTo(30_000_000d * Math.exp(-1), within(1.0));
  }

  @Test
  void picksWhoseStreamNeverStartsAreNeverCounted() {
    BalancerLoadBalancer lb = lb(Algorithm.LEAST_LOADED);
    accept(lb, group(1001), group(1002));
    FakeSubchannel a = helper.subchannel(1001);
    set(a, ConnectivityState.READY);
    Node<Backend> node = lb.backends().get("127.0.0.1:1001").node();

    // Three picks whose streams gRPC never creates (the transport went away under them), and
    // one that becomes a stream.
    PickResult started = pick();
    pick();
    pick();
    pick();
    assertThat(node.pending()).isZero();
    ClientStreamTracer t = started.getStreamTracerFactory().newClientStreamTracer(
        ClientStreamTracer.StreamInfo.newBuilder().build(), new Metadata());
    assertThat(node.pending()).isEqualTo(1);

    set(a, ConnectivityState.IDLE);
    assertThat(node.pending()).isEqualTo(1); // the started stream still runs
    t.streamClosed(Status.CANCELLED);
    assertThat(node.pending()).isZero();
  }

  @Test
  void policiesWithoutFeedbackReleaseThePickAtOnce() {
    for (Algorithm algorithm : List.of(Algorithm.VNSWRR, Algorithm.WEIGHTED_RANDOM)) {
      FakeHelper h = new FakeHelper();
      BalancerLoadBalancer lb = lb(h, algorithm);
      h.syncContext.execute(() -> lb.acceptResolvedAddresses(LoadBalancer.ResolvedAddresses
          .newBuilder().setAddresses(List.of(group(1001), group(1002))).build()));
      h.syncContext.execute(() -> h.subchannel(1001).set(ConnectivityState.READY));
      h.syncContext.execute(() -> h.subchannel(1002).set(ConnectivityState.READY));

      for (int i = 0; i < 10; i++) {
        PickResult r = h.picker.pickSubchannel(ARGS);
        assertThat(r.getSubchannel()).isNotNull();
        assertThat(r.getStreamTracerFactory()).isNull();
      }
      assertThat(pendingSum(lb)).as(algorithm.id()).isZero();
    }
  }

  @Test
  void weightsAndLabelsComeFromGroupAttributes() {
    BalancerLoadBalancer lb = lb(Algorithm.VNSWRR);
    accept(lb, group(1001, 3, Map.of("zone", "a")), group(1002));

    List<String> endpoints = new ArrayList<>();
    for (Node<Backend> n : lb.balancer().nodes()) {
      endpoints.add(n.endpoint().toString());
    }
    assertThat(endpoints).containsExactly("127.0.0.1:1001;weight=3;zone=a", "127.0.0.1:1002");

    set(helper.subchannel(1001), ConnectivityState.READY);
    set(helper.subchannel(1002), ConnectivityState.READY);
    int toA = 0;
    for (int i = 0; i < 400; i++) {
      if (pick().getSubchannel() == helper.subchannel(1001)) {
        toA++;
      }
    }
    assertThat(toA).isEqualTo(300);
  }

  @Test
  void badAddressesAreReturnedAsUnavailableNamingThePart() {
    BalancerLoadBalancer lb = lb(Algorithm.VNSWRR);

    Status badWeight = accept(lb, group(1001, 0, Map.of()));
    assertThat(badWeight.getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(badWeight.getDescription()).contains("weight: 0 (expected: > 0)");

    Status twice = accept(lb, group(1001), group(1001));
    assertThat(twice.getDescription()).contains("127.0.0.1:1001 given twice");

    SocketAddress notInet = new SocketAddress() {
      private static final long serialVersionUID = 1L;

      @Override
      public String toString() {
        return "in-process";
      }
    };
    Status other = accept(lb, new EquivalentAddressGroup(notInet));
    assertThat(other.getDescription()).contains("in-process (expected: an InetSocketAddress)");
    assertThat(helper.subchannels).isEmpty();
  }

  @Test
  void removedAddressesShutTheirSubchannelDownAndKeptOnesKeepState() {
    BalancerLoadBalancer lb = lb(Algorithm.LEAST_LOADED);
    accept(lb, group(1001), group(1002));
    FakeSubchannel a = helper.subchannel(1001);
    FakeSubchannel b = helper.subchannel(1002);
    set(a, ConnectivityState.READY);
    set(b, ConnectivityState.READY);
    pick(); // one pending somewhere
    Node<Backend> nodeA = lb.backends().get("127.0.0.1:1001").node();

    accept(lb, group(1001), group(1003));

    assertThat(b.shutdown).isTrue();
    assertThat(a.shutdown).isFalse();
    assertThat(helper.subchannels).hasSize(3);
    assertThat(lb.backends().get("127.0.0.1:1001").node()).isSameAs(nodeA);
    assertThat(nodeA.availability()).isEqualTo(Availability.OPEN);
    for (int i = 0; i < 50; i++) {
      assertThat(pick().getSubchannel()).isSameAs(a); // 1003 is still connecting
    }
  }

  @Test
  void configChangeMakesANewBalancerOverTheSameSubchannels() {
    BalancerLoadBalancer lb = lb(Algorithm.P2C_PEAK_EWMA);
    accept(lb, group(1001));
    set(helper.subchannel(1001), ConnectivityState.READY);
    Object config = PolicyConfig.parse(ConfiguredPolicy.named("p2c_peak_ewma"),
        "p2c_peak_ewma", base, Map.of("defaultRtt", "5ms")).getConfig();

    accept(lb, config, group(1001));

    assertThat(helper.subchannels).hasSize(1);
    Node<Backend> node = lb.backends().get("127.0.0.1:1001").node();
    assertThat(node.rttEstimateNanos()).isEqualTo(5_000_000d);
    assertThat(node.availability()).isEqualTo(Availability.OPEN);
    assertThat(pick().getSubchannel()).isSameAs(helper.subchannel(1001));
  }

  @Test
  void shutdownShutsEverySubchannelDownAndIgnoresLaterStates() {
    BalancerLoadBalancer lb = lb(Algorithm.VNSWRR);
    accept(lb, group(1001), group(1002));
    int updates = helper.pickerUpdates;

    helper.syncContext.execute(lb::shutdown);
    set(helper.subchannel(1001), ConnectivityState.READY);

    assertThat(helper.subchannels).allSatisfy(s -> assertThat(s.shutdown).isTrue());
    assertThat(helper.pickerUpdates).isEqualTo(updates);
  }

  @Test
  void everyStateChangePublishesANewPicker() {
    BalancerLoadBalancer lb = lb(Algorithm.VNSWRR);
    accept(lb, group(1001), group(1002));
    LoadBalancer.SubchannelPicker first = helper.picker;
    set(helper.subchannel(1001), ConnectivityState.READY);
    LoadBalancer.SubchannelPicker second = helper.picker;
    set(helper.subchannel(1002), ConnectivityState.READY);

    assertThat(second).isNotSameAs(first);
    assertThat(helper.picker).isNotSameAs(second);
  }

  @Test
  void swrrAndLeastLoadedShareOneTracerPerSubchannelAndEndEveryCall() {
    for (Algorithm algorithm : List.of(Algorithm.SWRR, Algorithm.LEAST_LOADED)) {
      FakeHelper h = new FakeHelper();
      BalancerLoadBalancer lb = lb(h, algorithm);
      h.syncContext.execute(() -> lb.acceptResolvedAddresses(LoadBalancer.ResolvedAddresses
          .newBuilder().setAddresses(List.of(group(1001))).build()));
      h.syncContext.execute(() -> h.subchannel(1001).set(ConnectivityState.READY));

      PickResult first = h.picker.pickSubchannel(ARGS);
      PickResult second = h.picker.pickSubchannel(ARGS);
      ClientStreamTracer t1 = first.getStreamTracerFactory().newClientStreamTracer(
          ClientStreamTracer.StreamInfo.newBuilder().build(), new Metadata());
      ClientStreamTracer t2 = second.getStreamTracerFactory().newClientStreamTracer(
          ClientStreamTracer.StreamInfo.newBuilder().build(), new Metadata());
      assertThat(t2).as(algorithm.id()).isSameAs(t1);
      assertThat(pendingSum(lb)).isEqualTo(2);
      t1.streamClosed(Status.UNAVAILABLE);
      t2.streamClosed(Status.OK);
      assertThat(pendingSum(lb)).as(algorithm.id()).isZero();
    }
  }

  @Test
  void resolutionErrorFailsPicksOnlyWhenNothingIsReady() {
    BalancerLoadBalancer lb = lb(Algorithm.VNSWRR);
    Status error = Status.UNAVAILABLE.withDescription("dns down");

    helper.syncContext.execute(() -> lb.handleNameResolutionError(error));
    assertThat(helper.state).isEqualTo(ConnectivityState.TRANSIENT_FAILURE);
    assertThat(pick().getStatus()).isSameAs(error);

    accept(lb, group(1001));
    set(helper.subchannel(1001), ConnectivityState.READY);
    helper.syncContext.execute(() -> lb.handleNameResolutionError(error));
    assertThat(helper.state).isEqualTo(ConnectivityState.READY);
    assertThat(pick().getSubchannel()).isSameAs(helper.subchannel(1001));
  }
}
