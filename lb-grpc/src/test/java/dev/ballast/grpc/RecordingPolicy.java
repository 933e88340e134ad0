package dev.ballast.grpc;

import io.grpc.LoadBalancer;
import io.grpc.LoadBalancerProvider;
import io.grpc.LoadBalancerRegistry;
import io.grpc.NameResolver.ConfigOrError;
import io.grpc.Status;
import io.grpc.util.ForwardingLoadBalancer;
import io.grpc.util.ForwardingLoadBalancerHelper;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One of our policies, registered under another name, that records what the channel cannot
 * show from outside: the status each address update got and how many subchannels were made.
 * Everything else is the real policy in a real channel.
 */
final class RecordingPolicy extends LoadBalancerProvider {

  private static final AtomicInteger NAMES = new AtomicInteger();

  private final String name;
  private final LoadBalancerProvider delegate;
  final AtomicInteger subchannels = new AtomicInteger();
  private final BlockingQueue<Status> updates = new LinkedBlockingQueue<>();

  private RecordingPolicy(String name, LoadBalancerProvider delegate) {
    this.name = name;
    this.delegate = delegate;
  }

  /** Registers a recording copy of the named policy under a fresh name. */
  static RecordingPolicy of(String policy) {
    LoadBalancerProvider delegate = LoadBalancerRegistry.getDefaultRegistry().getProvider(policy);
    RecordingPolicy p = new RecordingPolicy("recording_" + policy + "_" + NAMES.incrementAndGet(),
        delegate);
    LoadBalancerRegistry.getDefaultRegistry().register(p);
    return p;
  }

  /** Returns the status of the next address update the policy handled, waiting up to 20 s. */
  Status nextUpdate() throws InterruptedException {
    Status s = updates.poll(20, TimeUnit.SECONDS);
    if (s == null) {
      throw new AssertionError("no address update reached " + name + " within 20 s");
    }
    return s;
  }

  @Override
  public String getPolicyName() {
    return name;
  }

  @Override
  public boolean isAvailable() {
    return true;
  }

  @Override
  public int getPriority() {
    return 5;
  }

  @Override
  public ConfigOrError parseLoadBalancingPolicyConfig(Map<String, ?> rawConfig) {
    return delegate.parseLoadBalancingPolicyConfig(rawConfig);
  }

  @Override
  public LoadBalancer newLoadBalancer(LoadBalancer.Helper helper) {
    LoadBalancer lb = delegate.newLoadBalancer(new ForwardingLoadBalancerHelper() {
      @Override
      protected LoadBalancer.Helper delegate() {
        return helper;
      }

      @Override
      public LoadBalancer.Subchannel createSubchannel(LoadBalancer.CreateSubchannelArgs args) {
        subchannels.incrementAndGet();
        return super.createSubchannel(args);
      }
    });
    return new ForwardingLoadBalancer() {
      @Override
      protected LoadBalancer delegate() {
        return lb;
      }

      @Override
      public Status acceptResolvedAddresses(ResolvedAddresses resolved) {
        Status s = lb.acceptResolvedAddresses(resolved);
        updates.add(s);
        return s;
      }
    };
  }
}
