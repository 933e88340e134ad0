package dev.ballast.grpc.internal;

import dev.ballast.core.BalancerConfig;
import dev.ballast.core.policy.ConfiguredPolicy;
import dev.ballast.core.Endpoint;
import dev.ballast.core.Health;
import dev.ballast.core.NoAvailableEndpointException;
import dev.ballast.core.Node;
import dev.ballast.core.locality.LocalityBalancer;
import dev.ballast.core.log.StateChangeLog;
import dev.ballast.grpc.EndpointAttributes;
import io.grpc.ConnectivityState;
import io.grpc.ConnectivityStateInfo;
import io.grpc.EquivalentAddressGroup;
import io.grpc.LoadBalancer;
import io.grpc.Status;
import io.grpc.util.ForwardingLoadBalancerHelper;
import io.grpc.util.ForwardingSubchannel;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code locality} over one of gRPC's own policies ({@code round_robin}, {@code pick_first}, any
 * policy in gRPC's registry that picks without a key): lb-core's {@link LocalityBalancer} chooses
 * each call's priority and locality as Envoy does, then the child load balancer of that locality
 * picks the subchannel. There is one child per priority, zone and health label, made by the
 * child's provider and fed only those addresses, so that a call the tables send to a zone's
 * healthy endpoints reaches no other (a panic pick goes to the child of the endpoint it chose).
 *
 * <p>The children make the subchannels. Their states are watched on the way: a subchannel in
 * TRANSIENT_FAILURE makes its endpoint's node unhealthy until it is READY again (as in {@link
 * SubchannelLoadBalancer}), and so does its child's being in TRANSIENT_FAILURE, so that a zone
 * whose servers fail, or fail their health checks, gives up its share. Aggregate
 * state: READY if a child is, else CONNECTING if a child is connecting or idle, else
 * TRANSIENT_FAILURE. Runs in the channel's synchronization context. A pick is an uncounted
 * lb-core pick (no lock, no allocation) and two volatile reads before the child's own picker.
 * Not here: per-endpoint meters and {@code BallastGrpc.status} (the children own the
 * subchannels).
 */
final class LocalityChildren extends LoadBalancer {

  // the members of the chosen locality take turns (each is one of its child's endpoints)
  private static final ConfiguredPolicy<?> ROUND_ROBIN = ConfiguredPolicy.of("round_robin", null);

  private final Helper helper;
  private final BalancerConfig base;
  private final PickFailures pickFailures;
  private final StateChangeLog states; // panics and zone routing's changes, as lb-netty logs them
  private final Map<String, Child> children = new HashMap<>(); // by priority, zone and health
  private Map<List<SocketAddress>, Member> members = new HashMap<>();
  private LocalityBalancer<Member> balancer; // null before the first update and after shutdown
  private LocalityPolicyConfig.GrpcChild policy;
  private boolean updating;

  LocalityChildren(Helper helper, BalancerConfig base) {
    this.helper = helper;
    this.base = base;
    this.pickFailures = new PickFailures(helper.getAuthority());
    this.states = StateChangeLog.of("channel " + helper.getAuthority(), base.ticker());
  }

  /** One endpoint: its node in the tables and the child its locality's calls go to. */
  static final class Member {
    volatile Child child;
    Node<Member> node;
    Health verdict; // from its subchannel's last READY or TRANSIENT_FAILURE, or null
  }

  @Override
  public Status acceptResolvedAddresses(ResolvedAddresses resolved) {
    LocalityPolicyConfig c = (LocalityPolicyConfig) resolved.getLoadBalancingPolicyConfig();
    List<Endpoint> endpoints = new ArrayList<>();
    Map<String, List<EquivalentAddressGroup>> byKey = new LinkedHashMap<>();
    Map<String, Member> byAddress = new HashMap<>();
    Map<List<SocketAddress>, Member> next = new HashMap<>();
    LocalityBalancer<Member> target = balancer;
    if (resolved.getAddresses().isEmpty()) { // every endpoint withdrawn, as SubchannelLoadBalancer
      shutdown();
      members = new HashMap<>();
      Status s = Status.UNAVAILABLE.withDescription("name resolver returned no addresses for "
          + helper.getAuthority());
      helper.updateBalancingState(ConnectivityState.TRANSIENT_FAILURE,
          new FixedPicker(PickResult.withError(s)));
      return s;
    }
    try {
      for (EquivalentAddressGroup g : resolved.getAddresses()) {
        Endpoint e = EndpointAttributes.toEndpoint(g);
        Member m = members.getOrDefault(g.getAddresses(), new Member());
        if (byAddress.put(e.address(), m) != null) {
          throw new IllegalArgumentException("address: " + e.address() + " given twice");
        }
        next.put(g.getAddresses(), m);
        endpoints.add(e);
        byKey.computeIfAbsent(e.priority() + "/" + e.zone() + "/" + e.health(),
            k -> new ArrayList<>()).add(g);
      }
      if (target == null || !c.locality().equals(target.config())) {
        target = LocalityBalancer.<Member>builder().config(base)
            .balancerFactory(() -> ROUND_ROBIN.newBalancer(base)).locality(c.locality()).build();
        target.stateLog(states);
      }
      target.validate(endpoints);
    } catch (RuntimeException e) { // the previous set, if any, stays in force
      Status s = Status.UNAVAILABLE.withDescription("cannot balance the resolved addresses: "
          + e.getMessage()).withCause(e);
      handleNameResolutionError(s);
      return s;
    }
    if (!c.grpcChild().equals(policy)) { // another policy or config: children made anew
      shutdownChildren();
      policy = c.grpcChild();
    }
    updating = true;
    try {
      children.entrySet().removeIf(e -> !byKey.containsKey(e.getKey()) && shut(e.getValue()));
      byKey.forEach((key, groups) -> {
        Child child = children.computeIfAbsent(key, Child::new);
        groups.forEach(g -> next.get(g.getAddresses()).child = child);
      });
      target.update(endpoints, e -> byAddress.get(e.address()));
      for (Node<Member> n : target.nodes()) {
        n.value().node = n;
        judge(n.value());
      }
      balancer = target;
      members = next;
      byKey.forEach((key, groups) -> children.get(key).lb.acceptResolvedAddresses(resolved
          .toBuilder().setAddresses(groups).setLoadBalancingPolicyConfig(policy.config()).build()));
    } finally {
      updating = false;
    }
    publish();
    return Status.OK;
  }

  private static boolean shut(Child child) {
    child.lb.shutdown();
    return true;
  }

  /**
   * Hands a subchannel's state to its child, with the verdict a READY or TRANSIENT_FAILURE gives
   * its endpoint: a failure before the child hears it, a READY after the child has published the
   * picker that can reach it, so that the tables never send a call to a child that cannot take
   * it. Connecting and idle say nothing new (gRFC A61's sticky TRANSIENT_FAILURE).
   */
  private void watch(Subchannel subchannel, ConnectivityStateInfo info,
      SubchannelStateListener child) {
    Member m = members.get(subchannel.getAllAddresses().get(0).getAddresses());
    boolean failed = info.getState() == ConnectivityState.TRANSIENT_FAILURE;
    if (m != null && failed) {
      m.verdict = Health.UNHEALTHY;
      judge(m);
    }
    child.onSubchannelState(info);
    if (m != null && info.getState() == ConnectivityState.READY) {
      m.verdict = Health.HEALTHY;
      judge(m);
    }
  }

  // an endpoint is unhealthy while its subchannel or its whole child is in TRANSIENT_FAILURE
  private static void judge(Member m) {
    if (m.node != null) {
      m.node.setHealth(m.verdict == Health.UNHEALTHY
          || m.child.state == ConnectivityState.TRANSIENT_FAILURE
          ? Health.UNHEALTHY : Health.HEALTHY);
    }
  }

  private void publish() {
    if (updating || balancer == null) {
      return;
    }
    boolean connecting = false;
    ConnectivityState state = ConnectivityState.TRANSIENT_FAILURE;
    for (Child c : children.values()) {
      if (c.state == ConnectivityState.READY) {
        state = ConnectivityState.READY;
        break;
      }
      connecting |= c.state == ConnectivityState.CONNECTING || c.state == ConnectivityState.IDLE;
    }
    helper.updateBalancingState(state == ConnectivityState.READY || !connecting ? state
        : ConnectivityState.CONNECTING, new Picker(balancer, policy.name(), pickFailures));
  }

  @Override
  public void handleNameResolutionError(Status error) {
    if (children.isEmpty()) {
      helper.updateBalancingState(ConnectivityState.TRANSIENT_FAILURE,
          new FixedPicker(PickResult.withError(error)));
    }
    for (Child c : children.values()) {
      c.lb.handleNameResolutionError(error);
    }
  }

  @Override
  public void requestConnection() {
    for (Child c : children.values()) {
      c.lb.requestConnection();
    }
  }

  @Override
  public void shutdown() {
    balancer = null;
    shutdownChildren();
  }

  private void shutdownChildren() {
    for (Child c : children.values()) {
      c.lb.shutdown();
    }
    children.clear();
  }

  /** One locality's child load balancer; it reaches the channel through this helper. */
  private final class Child extends ForwardingLoadBalancerHelper {
    private final String key;
    private final LoadBalancer lb;
    private ConnectivityState state = ConnectivityState.CONNECTING;
    private volatile SubchannelPicker picker =
        new FixedPicker(PickResult.withNoResult());

    Child(String key) {
      this.key = key;
      this.lb = policy.provider().newLoadBalancer(this);
    }

    @Override
    protected Helper delegate() {
      return helper;
    }

    @Override
    public void updateBalancingState(ConnectivityState newState, SubchannelPicker newPicker) {
      if (children.get(key) == this) { // else a child shut down or being made
        state = newState;
        for (Member m : members.values()) {
          if (m.child == this) {
            judge(m);
          }
        }
        picker = newPicker;
        publish();
      }
    }

    // the subchannel's states reach the child through watch(): its health ones when a health
    // producer (gRFC A17's checks) reports them, else its raw ones
    @Override
    public Subchannel createSubchannel(CreateSubchannelArgs args) {
      SubchannelStateListener health = args.getOption(HEALTH_CONSUMER_LISTENER_ARG_KEY);
      Subchannel[] made = new Subchannel[1];
      if (health != null) {
        args = args.toBuilder().addOption(HEALTH_CONSUMER_LISTENER_ARG_KEY,
            info -> watch(made[0], info, health)).build();
      }
      made[0] = helper.createSubchannel(args);
      boolean byHealth = health != null
          && Boolean.TRUE.equals(made[0].getAttributes().get(HAS_HEALTH_PRODUCER_LISTENER_KEY));
      return new ForwardingSubchannel() {
        @Override
        protected Subchannel delegate() {
          return made[0];
        }

        @Override
        public void start(SubchannelStateListener listener) {
          made[0].start(byHealth ? listener : info -> watch(made[0], info, listener));
        }
      };
    }
  }

  /**
   * Chooses the locality by lb-core's tables, then asks that locality's child; a pick that
   * throws fails its call naming the layer that threw.
   */
  private static final class Picker extends SubchannelPicker {
    private final LocalityBalancer<Member> balancer;
    private final String child;
    private final PickFailures failures;

    Picker(LocalityBalancer<Member> balancer, String child, PickFailures failures) {
      this.balancer = balancer;
      this.child = child;
      this.failures = failures;
    }

    @Override
    public PickResult pickSubchannel(PickSubchannelArgs args) {
      Member m;
      try {
        m = balancer.pickUncounted().value();
      } catch (NoAvailableEndpointException e) {
        return PickResult.withError(Status.UNAVAILABLE.withDescription(e.getMessage()));
      } catch (RuntimeException e) { // our bug
        return failures.failed(balancer.name(), e);
      }
      try {
        return m.child.picker.pickSubchannel(args);
      } catch (RuntimeException e) { // the child's bug, ours or gRPC's
        return failures.failed(child + " (the child of locality)", e);
      }
    }
  }
}
