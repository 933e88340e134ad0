package dev.ballast.grpc.internal;

import dev.ballast.core.Endpoint;
import dev.ballast.core.Node;
import dev.ballast.core.Ticker;
import dev.ballast.core.status.BalancerStatus;
import dev.ballast.grpc.EndpointAttributes;
import dev.ballast.grpc.spi.PickResults;
import io.grpc.ConnectivityState;
import io.grpc.ConnectivityStateInfo;
import io.grpc.EquivalentAddressGroup;
import io.grpc.LoadBalancer;
import io.grpc.Status;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;

/**
 * The gRPC side shared by Ballast's policies: one subchannel per address group, their states
 * mapped onto lb-core node availability, and a new immutable picker published on every change.
 *
 * <p>Contract followed (gRPC's LoadBalancer API): every method runs in the channel's
 * synchronization context; a subchannel per {@link EquivalentAddressGroup} in use, connected
 * eagerly: every group, or only those of the policy's {@link #window()} (a deterministic
 * aperture's servers) and a few spares, made and shut down as the window or the addresses move
 * (see {@link Spares}); a window that moves between updates is applied in the
 * synchronization context too;
 * READY = {@code OPEN}, CONNECTING/IDLE = {@code BUSY} (IDLE asks for a connection again),
 * TRANSIENT_FAILURE = {@code CLOSED} and stays so until READY (gRFC A61's sticky
 * TRANSIENT_FAILURE); name resolution is refreshed on IDLE and TRANSIENT_FAILURE; shutdown
 * shuts every subchannel down.
 *
 * <p>Address updates: an empty list withdraws every endpoint (their subchannels shut down, calls
 * fail with UNAVAILABLE until addresses come back). A list the policy rejects (bad attributes, a
 * duplicate address, weights the algorithm cannot hold) is checked before any subchannel is made
 * and changes nothing: it is returned as UNAVAILABLE naming the cause, the previous set stays in
 * force, and calls fail with that status only while nothing is READY. No exception of ours
 * escapes into the channel, where it would panic it for good.
 *
 * <p>Aggregate state: READY if any subchannel is; else CONNECTING if any is connecting or idle
 * (picks wait); else TRANSIENT_FAILURE with the last connection error.
 */
abstract class SubchannelLoadBalancer extends LoadBalancer {

  final Helper helper;
  final PolicyMetrics metrics;
  final PickFailures pickFailures;
  private final Map<String, Backend> backends = new LinkedHashMap<>();
  // the address groups of the resolution being applied, by endpoint address
  private Map<String, EquivalentAddressGroup> resolvedGroups = Map.of();
  private Status lastFailure = Status.UNAVAILABLE.withDescription("no connection attempt yet");
  private boolean shutdown;
  private PickResults pickResults = PickResults.PLAIN;
  private final Spares spares = new Spares();
  private final String policy;
  private final LivePolicies.Entry live;

  SubchannelLoadBalancer(Helper helper, String policy) {
    this.helper = helper;
    this.policy = policy;
    this.metrics = PolicyMetrics.create(helper, policy);
    this.pickFailures = new PickFailures(helper.getAuthority());
    this.live = LivePolicies.add(helper.getAuthority(), this::status);
  }

  /**
   * Returns the balancer now in force, whose ramps and composite levels the status reads, or
   * null (then ramps read 1 and there are no levels).
   */
  Object balancer() {
    return null;
  }

  /**
   * Returns the policy's status, read in the channel's synchronization context (at once on the
   * calling thread when no other thread is draining it).
   *
   * @throws IllegalStateException if the context does not run it within 10 s
   */
  final BalancerStatus status() {
    // no update is in force after a shutdown or while every endpoint is withdrawn
    return PolicyStatus.read(helper, () -> PolicyStatus.of(helper.getAuthority(), policy,
        shutdown || backends.isEmpty() ? List.of() : nodes(), balancer()));
  }

  /**
   * Checks, making nothing, that {@link #update} will accept the config and the non-empty
   * endpoint set.
   *
   * @throws IllegalArgumentException naming the bad part
   */
  abstract void validate(Object config, List<Endpoint> endpoints);

  /**
   * Applies the policy config and the new non-empty endpoint set, which passed {@link #validate};
   * {@code values} gives the backend of an endpoint (kept or new).
   */
  abstract void update(Object config, List<Endpoint> endpoints,
      Function<Endpoint, Backend> values);

  /** Forgets the balanced set: every endpoint was withdrawn; the next update starts afresh. */
  abstract void clear();

  /** Returns the nodes now balanced, one per endpoint of the last update. */
  abstract List<Node<Backend>> nodes();

  /**
   * Returns the nodes whose endpoints need a subchannel now, or null for all of them (the
   * default): a policy that picks from a window of its nodes connects only those, and calls
   * {@link #windowMoved()} when the window moves between address updates.
   */
  List<Node<Backend>> window() {
    return null;
  }

  /** Returns the time source for stream latencies, or null if the policy ignores them. */
  abstract Ticker streamTicker();

  /**
   * Returns a picker over the current nodes, used while at least one subchannel is READY; a
   * {@link BalancerPicker} counts its own queued and failed picks, the others are wrapped to be
   * counted.
   */
  abstract SubchannelPicker readyPicker();

  @Override
  public final Status acceptResolvedAddresses(ResolvedAddresses resolved) {
    if (shutdown) {
      return Status.OK;
    }
    List<EquivalentAddressGroup> groups = resolved.getAddresses();
    if (groups.isEmpty()) {
      return withdrawAll(Status.UNAVAILABLE.withDescription(
          "name resolver returned no addresses for " + helper.getAuthority()));
    }
    Object config = resolved.getLoadBalancingPolicyConfig();
    List<Endpoint> endpoints = new ArrayList<>(groups.size());
    Map<String, EquivalentAddressGroup> groupOf = new HashMap<>();
    try {
      for (EquivalentAddressGroup g : groups) {
        Endpoint e = EndpointAttributes.toEndpoint(g);
        if (groupOf.put(e.address(), g) != null) {
          throw new IllegalArgumentException("address: " + e.address() + " given twice");
        }
        endpoints.add(e);
      }
      resolvedGroups = groupOf;
      validate(config, endpoints);
    } catch (RuntimeException e) {
      return rejected(e);
    }
    List<Backend> created = new ArrayList<>();
    try {
      update(config, endpoints, e -> backend(e, groupOf, created));
    } catch (RuntimeException e) {
      // validate should have caught it: undo what this update made, keep the previous set
      for (Backend b : created) {
        backends.remove(b.address);
      }
      return rejected(e);
    }
    Ticker ticker = streamTicker();
    for (Node<Backend> n : nodes()) {
      n.value().bind(n, ticker, pickResults);
      if (n.value().subchannel != null) {
        metrics.bound(n.value(), ticker != null);
      }
    }
    for (Iterator<Backend> it = backends.values().iterator(); it.hasNext(); ) {
      Backend b = it.next();
      EquivalentAddressGroup g = groupOf.get(b.address);
      if (g == null) {
        it.remove();
        disconnect(b);
      } else if (!g.equals(b.group)) {
        b.group = g;
        if (b.subchannel != null) {
          b.subchannel.updateAddresses(List.of(g));
        }
      }
    }
    connectWindow();
    publish();
    return Status.OK;
  }

  /**
   * Makes the subchannels of the policy's window that are missing and shuts down those outside
   * it, then publishes: for a window that moved between address updates (synchronization
   * context).
   */
  final void windowMoved() {
    if (!shutdown) {
      connectWindow();
      publish();
    }
  }

  /** Gives a subchannel to every backend in use, keeping a few {@link Spares} with a window. */
  private void connectWindow() {
    List<Node<Backend>> window = window();
    if (window == null) {
      spares.off();
      for (Backend b : backends.values()) {
        if (b.subchannel == null) {
          connect(b);
        }
      }
      return;
    }
    // shut down first, so that the subchannels held never exceed the bound
    for (Backend b : spares.apply(window, backends.values())) {
      disconnect(b);
    }
    for (Node<Backend> n : window) {
      if (n.value().subchannel == null) {
        connect(n.value());
      }
    }
  }

  private void connect(Backend b) {
    Subchannel subchannel = helper.createSubchannel(
        CreateSubchannelArgs.newBuilder().setAddresses(b.group).build());
    b.attach(subchannel, pickResults);
    metrics.added(b);
    Ticker ticker = streamTicker();
    if (b.node() != null) {
      metrics.bound(b, ticker != null);
    }
    subchannel.start(info -> onSubchannelState(b, subchannel, info));
    subchannel.requestConnection();
  }

  /**
   * Shuts a backend's subchannel down, if it has one. gRPC's channel lets the calls already on
   * it finish (it keeps the connection a few seconds for picks in flight, then closes it
   * gracefully).
   */
  private void disconnect(Backend b) {
    Subchannel subchannel = b.subchannel;
    if (subchannel != null) {
      metrics.removed(b);
      b.detach();
      subchannel.shutdown();
    }
  }

  /** Returns the address group the latest resolution gave for an endpoint address, or null. */
  final EquivalentAddressGroup resolvedGroup(String address) {
    return resolvedGroups.get(address);
  }

  /** Returns a rejected update's status; the previous set stays in force. */
  private Status rejected(RuntimeException e) {
    Status status = Status.UNAVAILABLE.withDescription(
        "cannot balance the resolved addresses: " + e.getMessage()).withCause(e);
    handleNameResolutionError(status);
    return status;
  }

  /** Shuts every subchannel down and fails picks with {@code status} until addresses return. */
  private Status withdrawAll(Status status) {
    for (Backend b : backends.values()) {
      disconnect(b);
    }
    backends.clear();
    clear();
    helper.updateBalancingState(ConnectivityState.TRANSIENT_FAILURE,
        new FixedPicker(PickResult.withError(status)));
    return status;
  }

  private Backend backend(Endpoint e, Map<String, EquivalentAddressGroup> groupOf,
      List<Backend> created) {
    Backend b = backends.get(e.address());
    if (b != null) {
      return b;
    }
    Backend made = new Backend(e.address(), groupOf.get(e.address()));
    backends.put(e.address(), made);
    created.add(made);
    return made;
  }

  private void onSubchannelState(Backend b, Subchannel subchannel, ConnectivityStateInfo info) {
    if (shutdown || backends.get(b.address) != b || b.subchannel != subchannel) {
      return; // a removed subchannel's last words
    }
    ConnectivityState s = info.getState();
    if (s == ConnectivityState.SHUTDOWN) {
      return;
    }
    if (s == ConnectivityState.IDLE && spares.isSpare(b)) {
      disconnect(b); // a spare whose connection closed is not needed enough to reopen it
      publish();
      return;
    }
    if (s == ConnectivityState.IDLE || s == ConnectivityState.TRANSIENT_FAILURE) {
      helper.refreshNameResolution();
    }
    if (s == ConnectivityState.IDLE) {
      b.subchannel.requestConnection();
    }
    if (s == ConnectivityState.TRANSIENT_FAILURE) {
      lastFailure = info.getStatus();
    }
    boolean sticky = b.state == ConnectivityState.TRANSIENT_FAILURE
        && (s == ConnectivityState.CONNECTING || s == ConnectivityState.IDLE);
    if (!sticky) {
      metrics.stateChanged(b.state, s);
      b.setState(s);
    }
    publish();
  }

  private void publish() {
    boolean connecting = false;
    boolean ready = false;
    int connected = 0;
    for (Backend b : backends.values()) {
      connected += b.subchannel != null ? 1 : 0;
      if (b.state == ConnectivityState.READY) {
        ready = true;
        break;
      }
      connecting |= b.state == ConnectivityState.CONNECTING || b.state == ConnectivityState.IDLE;
    }
    if (ready) {
      SubchannelPicker picker = readyPicker();
      helper.updateBalancingState(ConnectivityState.READY,
          picker instanceof BalancerPicker ? picker : metrics.counting(picker));
    } else if (connecting) {
      helper.updateBalancingState(ConnectivityState.CONNECTING,
          metrics.counting(new FixedPicker(PickResult.withNoResult())));
    } else {
      Status s = Status.UNAVAILABLE.withDescription("no READY subchannel among "
          + connected + "; last error: " + lastFailure.getCode()
          + (lastFailure.getDescription() == null ? "" : " " + lastFailure.getDescription()))
          .withCause(lastFailure.getCause());
      helper.updateBalancingState(ConnectivityState.TRANSIENT_FAILURE,
          metrics.counting(new FixedPicker(PickResult.withError(s))));
    }
  }

  @Override
  public final void handleNameResolutionError(Status error) {
    if (shutdown) {
      return;
    }
    boolean anyReady = false;
    for (Backend b : backends.values()) {
      anyReady |= b.state == ConnectivityState.READY;
    }
    if (!anyReady) {
      helper.updateBalancingState(ConnectivityState.TRANSIENT_FAILURE,
          metrics.counting(new FixedPicker(PickResult.withError(error))));
    }
  }

  @Override
  public final void requestConnection() {
    for (Backend b : backends.values()) {
      if (b.state == ConnectivityState.IDLE) {
        b.subchannel.requestConnection();
      }
    }
  }

  @Override
  public final void shutdown() {
    shutdown = true;
    LivePolicies.remove(live);
    for (Backend b : backends.values()) {
      if (b.subchannel != null) {
        b.subchannel.shutdown();
      }
    }
    backends.clear();
    metrics.close();
  }

  /**
   * Sets how the pick results of the backends are made from the next address update on
   * (synchronization context); default {@link PickResults#PLAIN}.
   */
  public final void pickResults(PickResults results) {
    this.pickResults = Objects.requireNonNull(results, "results");
  }

  /** Returns the backends by address, for tests. */
  final Map<String, Backend> backends() {
    return backends;
  }
}
