package dev.ballast.grpc.internal;

import io.grpc.Attributes;
import io.grpc.CallOptions;
import io.grpc.ChannelLogger;
import io.grpc.ConnectivityState;
import io.grpc.ConnectivityStateInfo;
import io.grpc.EquivalentAddressGroup;
import io.grpc.LoadBalancer;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.SynchronizationContext;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

/** A channel stand-in: records subchannels, states and pickers; runs everything inline. */
final class FakeHelper extends LoadBalancer.Helper {

  final SynchronizationContext syncContext = new SynchronizationContext((t, e) -> {
    throw new AssertionError(e);
  });
  final List<FakeSubchannel> subchannels = new ArrayList<>();
  ConnectivityState state;
  LoadBalancer.SubchannelPicker picker;
  int pickerUpdates;
  int refreshes;

  private static final ChannelLogger NO_LOG = new ChannelLogger() {
    @Override
    public void log(ChannelLogLevel level, String message) {}

    @Override
    public void log(ChannelLogLevel level, String format, Object... args) {}
  };

  private static final ScheduledExecutorService TIMER =
      Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "fake-helper-timer");
        t.setDaemon(true);
        return t;
      });

  @Override
  public LoadBalancer.Subchannel createSubchannel(LoadBalancer.CreateSubchannelArgs args) {
    FakeSubchannel s = new FakeSubchannel(args.getAddresses(),
        args.getOption(LoadBalancer.HEALTH_CONSUMER_LISTENER_ARG_KEY));
    subchannels.add(s);
    return s;
  }

  /** gRPC's own pick_first runs timers; none fires in these tests. */
  @Override
  public ScheduledExecutorService getScheduledExecutorService() {
    return TIMER;
  }

  @Override
  public ChannelLogger getChannelLogger() {
    return NO_LOG;
  }

  @Override
  public ManagedChannel createOobChannel(EquivalentAddressGroup eag, String authority) {
    throw new UnsupportedOperationException();
  }

  @Override
  public void updateBalancingState(ConnectivityState newState,
      LoadBalancer.SubchannelPicker newPicker) {
    state = newState;
    picker = newPicker;
    pickerUpdates++;
  }

  @Override
  public void refreshNameResolution() {
    refreshes++;
  }

  @Override
  public SynchronizationContext getSynchronizationContext() {
    return syncContext;
  }

  @Override
  public String getAuthority() {
    return "fake-authority";
  }

  FakeSubchannel subchannel(int port) {
    for (FakeSubchannel s : subchannels) {
      if (((java.net.InetSocketAddress) s.getAddresses().getAddresses().get(0)).getPort()
          == port) {
        return s;
      }
    }
    throw new AssertionError("no subchannel for port " + port);
  }

  /** A unary method, as gRPC gives every pick (its marshallers are never used here). */
  private static final MethodDescriptor<Void, Void> UNARY =
      MethodDescriptor.<Void, Void>newBuilder()
      .setType(MethodDescriptor.MethodType.UNARY)
      .setFullMethodName("test.Service/Call")
      .setRequestMarshaller(new NoMarshaller())
      .setResponseMarshaller(new NoMarshaller())
      .build();

  /** Returns pick arguments carrying these headers and call options, for a unary method. */
  static LoadBalancer.PickSubchannelArgs pickArgs(Metadata headers, CallOptions options) {
    return new LoadBalancer.PickSubchannelArgs() {
      @Override
      public CallOptions getCallOptions() {
        return options;
      }

      @Override
      public Metadata getHeaders() {
        return headers;
      }

      @Override
      public MethodDescriptor<?, ?> getMethodDescriptor() {
        return UNARY;
      }
    };
  }

  private static final class NoMarshaller implements MethodDescriptor.Marshaller<Void> {
    @Override
    public java.io.InputStream stream(Void value) {
      throw new UnsupportedOperationException();
    }

    @Override
    public Void parse(java.io.InputStream stream) {
      throw new UnsupportedOperationException();
    }
  }

  /** Returns ASCII headers from alternating names and values. */
  static Metadata headers(String... namesAndValues) {
    Metadata md = new Metadata();
    for (int i = 0; i < namesAndValues.length; i += 2) {
      md.put(Metadata.Key.of(namesAndValues[i], Metadata.ASCII_STRING_MARSHALLER),
          namesAndValues[i + 1]);
    }
    return md;
  }

  /** A subchannel whose state the test sets. */
  static final class FakeSubchannel extends LoadBalancer.Subchannel {
    private List<EquivalentAddressGroup> groups;
    // gRPC's pick_first listens for health here too
    private final LoadBalancer.SubchannelStateListener health;
    LoadBalancer.SubchannelStateListener listener;
    int connectionRequests;
    boolean shutdown;

    FakeSubchannel(List<EquivalentAddressGroup> groups,
        LoadBalancer.SubchannelStateListener health) {
      this.groups = groups;
      this.health = health;
    }

    @Override
    public void start(LoadBalancer.SubchannelStateListener l) {
      this.listener = l;
    }

    @Override
    public void shutdown() {
      shutdown = true;
    }

    @Override
    public void requestConnection() {
      connectionRequests++;
    }

    @Override
    public List<EquivalentAddressGroup> getAllAddresses() {
      return groups;
    }

    @Override
    public void updateAddresses(List<EquivalentAddressGroup> addrs) {
      this.groups = addrs;
    }

    @Override
    public Attributes getAttributes() {
      return Attributes.EMPTY;
    }

    void set(ConnectivityState s) {
      listener.onSubchannelState(ConnectivityStateInfo.forNonError(s));
      if (health != null && s == ConnectivityState.READY) {
        health.onSubchannelState(ConnectivityStateInfo.forNonError(s));
      }
    }

    @Override
    public ChannelLogger getChannelLogger() {
      return NO_LOG;
    }

    void fail(io.grpc.Status status) {
      listener.onSubchannelState(ConnectivityStateInfo.forTransientFailure(status));
    }
  }
}
