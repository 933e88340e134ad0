package dev.ballast.bench.grpc;

import io.grpc.Attributes;
import io.grpc.ChannelLogger;
import io.grpc.ConnectivityState;
import io.grpc.ConnectivityStateInfo;
import io.grpc.EquivalentAddressGroup;
import io.grpc.LoadBalancer;
import io.grpc.ManagedChannel;
import io.grpc.SynchronizationContext;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

/**
 * The channel's side of gRPC's load-balancer API, faked for {@link PickerBenchmark}: subchannels
 * that exist without I/O and report CONNECTING then READY when told, a synchronization context
 * that runs inline, and a timer that never fires for READY subchannels.
 */
final class BenchHelper extends LoadBalancer.Helper {

  private static final ScheduledExecutorService TIMER =
      Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "picker-benchmark-timer");
        t.setDaemon(true);
        return t;
      });

  final SynchronizationContext syncContext = new SynchronizationContext((t, e) -> {
    throw new IllegalStateException(e);
  });
  final List<BenchSubchannel> subchannels = new ArrayList<>();
  ConnectivityState state;
  LoadBalancer.SubchannelPicker picker;

  /** Reports CONNECTING then READY on the started subchannels not yet connected; their count. */
  int connectNew() {
    List<BenchSubchannel> fresh = new ArrayList<>();
    for (BenchSubchannel sc : subchannels) {
      if (sc.listener != null && !sc.connected) {
        sc.connected = true;
        fresh.add(sc);
      }
    }
    for (BenchSubchannel sc : fresh) {
      syncContext.execute(() -> sc.report(ConnectivityState.CONNECTING));
    }
    for (BenchSubchannel sc : fresh) {
      syncContext.execute(() -> sc.report(ConnectivityState.READY));
    }
    return fresh.size();
  }

  @Override
  public LoadBalancer.Subchannel createSubchannel(LoadBalancer.CreateSubchannelArgs args) {
    BenchSubchannel s = new BenchSubchannel(args);
    subchannels.add(s);
    return s;
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
  }

  @Override
  public void refreshNameResolution() {}

  @Override
  public SynchronizationContext getSynchronizationContext() {
    return syncContext;
  }

  @Override
  public String getAuthority() {
    return "bench";
  }

  @Override
  public String getChannelTarget() {
    return "bench"; // weighted_round_robin labels its metrics with it
  }

  @Override
  public ChannelLogger getChannelLogger() {
    return NoLogger.INSTANCE;
  }

  @Override
  public ScheduledExecutorService getScheduledExecutorService() {
    return TIMER; // pick_first's connection timers; they never fire here, all are READY
  }

  static final class BenchSubchannel extends LoadBalancer.Subchannel {
    private final LoadBalancer.CreateSubchannelArgs args;
    private LoadBalancer.SubchannelStateListener listener;
    private boolean connected;

    BenchSubchannel(LoadBalancer.CreateSubchannelArgs args) {
      this.args = args;
    }

    @Override
    public void start(LoadBalancer.SubchannelStateListener l) {
      listener = l;
    }

    void report(ConnectivityState s) {
      if (listener != null) {
        listener.onSubchannelState(ConnectivityStateInfo.forNonError(s));
      }
      LoadBalancer.SubchannelStateListener health =
          args.getOption(LoadBalancer.HEALTH_CONSUMER_LISTENER_ARG_KEY);
      if (health != null && s == ConnectivityState.READY) {
        health.onSubchannelState(ConnectivityStateInfo.forNonError(s));
      }
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
      return NoLogger.INSTANCE;
    }
  }

  static final class NoLogger extends ChannelLogger {
    static final NoLogger INSTANCE = new NoLogger();

    @Override
    public void log(ChannelLogLevel level, String message) {}

    @Override
    public void log(ChannelLogLevel level, String messageFormat, Object... args) {}
  }
}
