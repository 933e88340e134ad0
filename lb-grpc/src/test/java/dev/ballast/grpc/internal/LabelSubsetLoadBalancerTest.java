package dev.ballast.grpc.internal;

import static dev.ballast.grpc.internal.BalancerLoadBalancerTest.group;
import static dev.ballast.grpc.internal.FakeHelper.headers;
import static dev.ballast.grpc.internal.FakeHelper.pickArgs;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.core.BalancerConfig;
import dev.ballast.core.ChildBalancer;
import dev.ballast.core.Endpoint;
import dev.ballast.core.Node;
import dev.ballast.core.roundrobin.RoundRobin;
import dev.ballast.core.subset.RequestLabels;
import dev.ballast.core.subset.SubsetSelector;
import dev.ballast.grpc.LabelSubsetLoadBalancerProvider;
import io.grpc.CallOptions;
import io.grpc.ClientStreamTracer;
import io.grpc.ConnectivityState;
import io.grpc.EquivalentAddressGroup;
import io.grpc.LoadBalancer.PickResult;
import io.grpc.LoadBalancer;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.internal.JsonParser;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/** label_subset through a fake channel helper: routing by header and call option, fallbacks. */
class LabelSubsetLoadBalancerTest {

  private final FakeHelper helper = new FakeHelper();
  private final LabelSubsetLoadBalancerProvider provider = new LabelSubsetLoadBalancerProvider(
      BalancerConfig.builder().random(new SplittableRandom(7)).build());
  // made directly, not behind gRPC's health checking, to read its selector
  private final LoadBalancer lb = new LabelSubsetLoadBalancer(helper,
      BalancerConfig.builder().random(new SplittableRandom(7)).build(),
      LabelSubsetLoadBalancerProvider.REQUEST_LABELS);

  // a1, a2 in zone a (a2 is v2); b1, b2 in zone b.
  private static final EquivalentAddressGroup[] GROUPS = {
      group(2001, 1, Map.of("zone", "a", "version", "v1")),
      group(2002, 1, Map.of("zone", "a", "version", "v2")),
      group(2003, 1, Map.of("zone", "b", "version", "v1")),
      group(2004, 1, Map.of("zone", "b", "version", "v1"))};

  private Status accept(String config) throws Exception {
    @SuppressWarnings("unchecked")
    Map<String, ?> json = (Map<String, ?>) JsonParser.parse(config.replace('\'', '"'));
    Object parsed = provider.parseLoadBalancingPolicyConfig(json).getConfig();
    Status[] out = new Status[1];
    helper.syncContext.execute(() -> out[0] = lb.acceptResolvedAddresses(
        LoadBalancer.ResolvedAddresses.newBuilder().setAddresses(List.of(GROUPS))
            .setLoadBalancingPolicyConfig(parsed).build()));
    return out[0];
  }

  private void allReady() {
    for (FakeHelper.FakeSubchannel s : List.copyOf(helper.subchannels)) {
      helper.syncContext.execute(() -> s.set(ConnectivityState.READY));
    }
  }

  private Set<Integer> portsPicked(LoadBalancer.PickSubchannelArgs a) {
    Set<Integer> ports = new HashSet<>();
    for (int i = 0; i < 200; i++) {
      PickResult r = helper.picker.pickSubchannel(a);
      assertThat(r.getSubchannel()).as("pick %s", r).isNotNull();
      ports.add(((java.net.InetSocketAddress) r.getSubchannel().getAddresses().getAddresses()
          .get(0)).getPort());
      if (r.getStreamTracerFactory() != null) {
        r.getStreamTracerFactory().newClientStreamTracer(
            ClientStreamTracer.StreamInfo.newBuilder().build(), new Metadata())
            .streamClosed(Status.OK);
      }
    }
    return ports;
  }

  @Test
  void headerRoutesToTheMatchingSubsetOnly() throws Exception {
    assertThat(accept("{'selectors': [['zone'], ['version', 'zone']],"
        + " 'childPolicy': [{'least_loaded': {}}]}").isOk()).isTrue();
    allReady();

    assertThat(portsPicked(pickArgs(headers("x-lb-zone", "b"), CallOptions.DEFAULT)))
        .containsExactlyInAnyOrder(2003, 2004);
    Metadata two = headers("x-lb-zone", "a");
    two.put(Metadata.Key.of("x-lb-version", Metadata.ASCII_STRING_MARSHALLER), "v2");
    assertThat(portsPicked(pickArgs(two, CallOptions.DEFAULT))).containsExactly(2002);
    // The load feedback ended every pick.
    for (Node<Backend> n : ((LabelSubsetLoadBalancer) lb).selector().nodes()) {
      assertThat(n.pending()).isZero();
    }
  }

  @Test
  void callOptionLabelsOverrideHeaders() throws Exception {
    accept("{'selectors': [['zone']]}");
    allReady();

    CallOptions options = CallOptions.DEFAULT.withOption(
        LabelSubsetLoadBalancerProvider.REQUEST_LABELS, RequestLabels.of("zone", "a"));
    assertThat(portsPicked(pickArgs(headers("x-lb-zone", "b"), options)))
        .containsExactlyInAnyOrder(2001, 2002);
  }

  @Test
  void customHeaderPrefix() throws Exception {
    accept("{'selectors': [['zone']], 'headerPrefix': 'route-'}");
    allReady();

    assertThat(portsPicked(pickArgs(headers("route-zone", "a"), CallOptions.DEFAULT)))
        .containsExactlyInAnyOrder(2001, 2002);
  }

  @Test
  void noFallbackFailsAMissNamingTheLabels() throws Exception {
    accept("{'selectors': [['zone']]}");
    allReady();

    PickResult miss = helper.picker.pickSubchannel(
        pickArgs(headers("x-lb-zone", "c"), CallOptions.DEFAULT));
    assertThat(miss.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(miss.getStatus().getDescription()).contains("zone=c").contains("NO_FALLBACK");

    PickResult none = helper.picker.pickSubchannel(pickArgs(new Metadata(), CallOptions.DEFAULT));
    assertThat(none.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
  }

  @Test
  void anyEndpointFallbackTakesEveryone() throws Exception {
    accept("{'selectors': [['zone']], 'fallbackPolicy': 'ANY_ENDPOINT'}");
    allReady();

    assertThat(portsPicked(pickArgs(headers("x-lb-zone", "c"), CallOptions.DEFAULT)))
        .containsExactlyInAnyOrder(2001, 2002, 2003, 2004);
  }

  @Test
  void defaultSubsetFallbackTakesTheDefaultOnly() throws Exception {
    accept("{'selectors': [['zone']], 'fallbackPolicy': 'DEFAULT_SUBSET',"
        + " 'defaultSubset': {'version': 'v1'}}");
    allReady();

    assertThat(portsPicked(pickArgs(new Metadata(), CallOptions.DEFAULT)))
        .containsExactlyInAnyOrder(2001, 2003, 2004);
  }

  @Test
  void subsetStillConnectingWaitsAndAllFailedFails() throws Exception {
    accept("{'selectors': [['zone']]}");
    helper.syncContext.execute(() -> helper.subchannel(2001).set(ConnectivityState.READY));
    LoadBalancer.PickSubchannelArgs zoneB =
        pickArgs(headers("x-lb-zone", "b"), CallOptions.DEFAULT);

    PickResult waiting = helper.picker.pickSubchannel(zoneB);
    assertThat(waiting.hasResult()).isFalse();
    assertThat(waiting.getStatus().isOk()).isTrue();

    helper.syncContext.execute(() -> helper.subchannel(2003).fail(Status.UNAVAILABLE));
    helper.syncContext.execute(() -> helper.subchannel(2004).fail(Status.UNAVAILABLE));
    PickResult failed = helper.picker.pickSubchannel(zoneB);
    assertThat(failed.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(failed.getStatus().getDescription())
        .contains("all 2 endpoints for request labels").contains("zone=b");
  }

  @Test
  void missingConfigIsReturnedAsUnavailable() {
    Status[] out = new Status[1];
    helper.syncContext.execute(() -> out[0] = lb.acceptResolvedAddresses(
        LoadBalancer.ResolvedAddresses.newBuilder().setAddresses(List.of(GROUPS)).build()));

    assertThat(out[0].getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(out[0].getDescription()).contains("label_subset: no config");
    assertThat(helper.subchannels).isEmpty();
  }

  /**
   * A child balancer that refuses its members at the subset's first pick (lb-core checks child
   * constraints at update time too): the picker turns the exception into the call's status
   * instead of letting it escape into the channel.
   */
  @Test
  void anExceptionOfAChildBalancerBecomesTheCallsStatus() {
    SubsetSelector<Backend> selector = SubsetSelector.<Backend>builder()
        .selectors(List.of(List.of("zone")))
        .balancerFactory(() -> new RefusingBalancer())
        .build();
    selector.update(List.of(Endpoint.parse("127.0.0.1:2001;zone=a")), e -> null);
    LabelSubsetPicker picker = new LabelSubsetPicker(selector,
        new RequestLabelReader(List.of(List.of("zone")), "x-lb-", CallOptions.Key.create("l")),
        BalancerPicker.Feedback.NONE, new PickFailures("test"));

    PickResult r = picker.pickSubchannel(pickArgs(headers("x-lb-zone", "a"), CallOptions.DEFAULT));

    assertThat(r.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(r.getStatus().getDescription())
        .startsWith("balancing policy label_subset(")
        .contains("(request labels {zone=a}) failed to pick: ")
        .contains("weights: refused by this child");
    assertThat(r.isDrop()).as("a drop: a wait-for-ready call fails at once too").isTrue();
  }

  /** Round robin whose setNodes refuses every set, as a child with stricter rules would. */
  private static final class RefusingBalancer implements ChildBalancer<Backend> {
    private final ChildBalancer<Backend> inner = new RoundRobin<>();

    @Override
    public Node<Backend> pick() {
      return inner.pick();
    }

    @Override
    public Node<Backend> pickUncounted() {
      return inner.pickUncounted();
    }

    @Override
    public List<Node<Backend>> update(Collection<Endpoint> endpoints,
        Function<? super Endpoint, ? extends Backend> values) {
      return inner.update(endpoints, values);
    }

    @Override
    public void validate(Collection<Endpoint> endpoints) {
      inner.validate(endpoints);
    }

    @Override
    public List<Node<Backend>> nodes() {
      return inner.nodes();
    }

    @Override
    public String name() {
      return inner.name();
    }

    @Override
    public Node<Backend> newNode(Endpoint endpoint, Backend value) {
      return inner.newNode(endpoint, value);
    }

    @Override
    public void setNodes(List<Node<Backend>> nodes) {
      throw new IllegalArgumentException("weights: refused by this child");
    }

    @Override
    public void renew(Node<Backend> node, Endpoint endpoint) {
      inner.renew(node, endpoint);
    }
  }
}
