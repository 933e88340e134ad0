package dev.ballast.grpc.internal;

import io.grpc.Attributes;
import io.grpc.ChannelLogger;
import io.grpc.ConnectivityState;
import io.grpc.ConnectivityStateInfo;
import io.grpc.EquivalentAddressGroup;
import io.grpc.LoadBalancer;
import io.grpc.LoadBalancerProvider;
import io.grpc.LoadBalancerRegistry;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.SynchronizationContext;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

/**
 * gRPC-java's own {@code ring_hash_experimental} policy (grpc-xds), run through its provider in
 * a stand-in channel whose subchannels all become READY, so a test can ask which address it
 * sends a key to. Its children connect lazily (a pick on an idle entry asks for a connection), so
 * {@link #start} picks until every address has a READY subchannel.
 */
final class GrpcRingHash implements AutoCloseable {

  static final String POLICY = "ring_hash_experimental";

  static {
    // gRFC A76's requestHashHeader is read only with this flag (environment or system property)
    System.setProperty("GRPC_EXPERIMENTAL_RING_HASH_SET_REQUEST_HASH_KEY", "true");
  }

  private static final ScheduledExecutorService TIMER = Executors.newSingleThreadScheduledExecutor(
      r -> {
        Thread t = new Thread(r, "grpc-ring-hash-reference");
        t.setDaemon(true);
        return t;
      });

  private final Helper helper = new Helper();
  private final LoadBalancer lb;
  private final Metadata.Key<String> header;

  private GrpcRingHash(List<EquivalentAddressGroup> groups, Map<String, ?> config, String header) {
    LoadBalancerProvider provider = LoadBalancerRegistry.getDefaultRegistry().getProvider(POLICY);
    if (provider == null) {
      throw new AssertionError(POLICY + " is not registered (grpc-xds missing?)");
    }
    Object parsed = provider.parseLoadBalancingPolicyConfig(config).getConfig();
    if (parsed == null) {
      throw new AssertionError(POLICY + " rejected " + config);
    }
    this.lb = provider.newLoadBalancer(helper);
    this.header = Metadata.Key.of(header, Metadata.ASCII_STRING_MARSHALLER);
    helper.sync.execute(() -> {
      Status s = lb.acceptResolvedAddresses(LoadBalancer.ResolvedAddresses.newBuilder()
          .setAddresses(groups).setLoadBalancingPolicyConfig(parsed).build());
      if (!s.isOk()) {
        throw new AssertionError(POLICY + ": " + s);
      }
    });
  }

  /** Starts the policy over the groups and connects every child; {@code config} is its JSON. */
  static GrpcRingHash start(List<EquivalentAddressGroup> groups, Map<String, ?> config,
      String header) {
    GrpcRingHash ring = new GrpcRingHash(groups, config, header);
    java.util.SplittableRandom random = new java.util.SplittableRandom(7);
    for (int i = 0; i < 1000 * groups.size() && ring.helper.ready < groups.size(); i++) {
      ring.pick("warm-" + random.nextLong());
      ring.helper.connectNew();
    }
    if (ring.helper.ready < groups.size()) {
      throw new AssertionError("only " + ring.helper.ready + " of " + groups.size()
          + " children connected");
    }
    return ring;
  }

  /** Returns the first address of the subchannel gRPC-java picks for the key, or null if none. */
  SocketAddress pick(String key) {
    Metadata md = new Metadata();
    md.put(header, key);
    LoadBalancer.PickResult r = helper.picker.pickSubchannel(FakeHelper.pickArgs(md,
        io.grpc.CallOptions.DEFAULT));
    LoadBalancer.Subchannel sc = r.getSubchannel();
    return sc == null ? null : sc.getAllAddresses().get(0).getAddresses().get(0);
  }

  @Override
  public void close() {
    helper.sync.execute(lb::shutdown);
  }

  private static final class Helper extends LoadBalancer.Helper {
    final SynchronizationContext sync = new SynchronizationContext((t, e) -> {
      throw new AssertionError(e);
    });
    final List<Sub> subchannels = new ArrayList<>();
    LoadBalancer.SubchannelPicker picker;
    int ready;

    void connectNew() {
      for (Sub s : new ArrayList<>(subchannels)) {
        if (!s.ready && s.listener != null) {
          s.ready = true;
          ready++;
          sync.execute(() -> s.report(ConnectivityState.CONNECTING));
          sync.execute(() -> s.report(ConnectivityState.READY));
        }
      }
    }

    @Override
    public LoadBalancer.Subchannel createSubchannel(LoadBalancer.CreateSubchannelArgs args) {
      Sub s = new Sub(args);
      subchannels.add(s);
      return s;
    }

    @Override
    public ManagedChannel createOobChannel(EquivalentAddressGroup eag, String authority) {
      throw new UnsupportedOperationException();
    }

    @Override
    public void updateBalancingState(ConnectivityState state, LoadBalancer.SubchannelPicker p) {
      picker = p;
    }

    @Override
    public void refreshNameResolution() {}

    @Override
    public SynchronizationContext getSynchronizationContext() {
      return sync;
    }

    @Override
    public ScheduledExecutorService getScheduledExecutorService() {
      return TIMER; // pick_first's timers; none fires, every subchannel becomes READY at once
    }

    @Override
    public String getAuthority() {
      return "grpc-ring-hash-reference";
    }

    @Override
    public ChannelLogger getChannelLogger() {
      return new ChannelLogger() {
        @Override
        public void log(ChannelLogLevel level, String message) {}

        @Override
        public void log(ChannelLogLevel level, String format, Object... args) {}
      };
    }
  }

  private static final class Sub extends LoadBalancer.Subchannel {
    private final LoadBalancer.CreateSubchannelArgs args;
    LoadBalancer.SubchannelStateListener listener;
    boolean ready;

    Sub(LoadBalancer.CreateSubchannelArgs args) {
      this.args = args;
    }

    void report(ConnectivityState s) {
      listener.onSubchannelState(ConnectivityStateInfo.forNonError(s));
      LoadBalancer.SubchannelStateListener health =
          args.getOption(LoadBalancer.HEALTH_CONSUMER_LISTENER_ARG_KEY);
      if (health != null && s == ConnectivityState.READY) {
        health.onSubchannelState(ConnectivityStateInfo.forNonError(s));
      }
    }

    @Override
    public void start(LoadBalancer.SubchannelStateListener l) {
      listener = l;
    }

    @Override
    public void shutdown() {}

    @Override
    public void requestConnection() {}

    @Override
    public List<EquivalentAddressGroup> getAllAddresses() {
      return args.getAddresses();
    }

    @Override
    public Attributes getAttributes() {
      return args.getAttributes();
    }

    @Override
    public ChannelLogger getChannelLogger() {
      return new ChannelLogger() {
        @Override
        public void log(ChannelLogLevel level, String message) {}

        @Override
        public void log(ChannelLogLevel level, String format, Object... args) {}
      };
    }
  }
}
