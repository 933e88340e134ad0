package dev.ballast.grpc.orca.internal;

import dev.ballast.core.BalancerConfig;
import dev.ballast.core.Node;
import dev.ballast.core.load.WeightedRoundRobinConfig;
import dev.ballast.grpc.spi.ReportFeed;
import dev.ballast.grpc.spi.ReportTarget;
import io.grpc.LoadBalancer;
import io.grpc.Status;
import io.grpc.util.ForwardingLoadBalancerHelper;
import java.time.Duration;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.function.Function;

/**
 * lb-grpc's load balancer of a policy that reads load reports (lb-core's or a registered one;
 * a {@link ReportTarget}), with ORCA's reports fed to its nodes: lb-grpc's {@link ReportFeed}.
 *
 * <p>Contract: every method runs in the channel's synchronization context, as gRPC's API says.
 * Each subchannel the inner load balancer makes is wrapped ({@link ReportedSubchannel}): with
 * {@code enableOobLoadReport} off (the default, as A58), each pick carries a per-call tracer that
 * reads the call's {@code endpoint-load-metrics-bin} trailer, built into the backends' pick
 * results ({@link ReportedSubchannel#PER_CALL}), so that the inner load balancer's picker is
 * published as it is; with it on, each subchannel runs its out-of-band stream ({@link
 * OobStream}) while READY. After each address update, each subchannel's reports are bound to the
 * node that balances it; reports for a subchannel no node balances are dropped.
 */
public final class OrcaLoadBalancer extends LoadBalancer {

  private final Helper helper;
  private final BalancerConfig base;
  private final LoadBalancer delegate;
  private final ReportTarget target;
  // the inner load balancer's subchannels (synchronization context)
  private final Map<Subchannel, ReportedSubchannel> subchannels = new HashMap<>();
  private WeightedRoundRobinConfig reports = WeightedRoundRobinConfig.defaults();

  /**
   * Creates the load balancer over the one {@code inner} makes with a helper whose subchannels
   * report.
   *
   * @param base the lb-core settings (its random source spreads the out-of-band streams' backoff)
   */
  public <B extends LoadBalancer & ReportTarget> OrcaLoadBalancer(Helper helper,
      Function<Helper, B> inner, BalancerConfig base) {
    this.helper = helper;
    this.base = base;
    B made = inner.apply(new Reporting());
    this.delegate = made;
    this.target = made;
  }

  @Override
  public Status acceptResolvedAddresses(ResolvedAddresses resolved) {
    Object config = resolved.getLoadBalancingPolicyConfig();
    reports = target.ownConfig(config) instanceof WeightedRoundRobinConfig w ? w : reports;
    target.pickResults(reports.enableOobLoadReport()
        ? ReportedSubchannel.OUT_OF_BAND : ReportedSubchannel.PER_CALL);
    Status status = delegate.acceptResolvedAddresses(resolved);
    bind();
    for (ReportedSubchannel r : subchannels.values()) {
      r.oob.configure(oobPeriod());
    }
    return status;
  }

  /** Binds each subchannel's reports to its node; forgets the subchannels no node balances. */
  private void bind() {
    Map<Subchannel, Node<?>> nodes = new HashMap<>();
    target.forEachNode(nodes::put);
    for (Iterator<ReportedSubchannel> it = subchannels.values().iterator(); it.hasNext(); ) {
      ReportedSubchannel r = it.next();
      r.node = nodes.get(r);
      if (r.node == null) {
        it.remove();
      }
    }
  }

  /** The out-of-band reporting period the config asks for, or null for per-call reports. */
  private Duration oobPeriod() {
    return reports.enableOobLoadReport() ? reports.oobReportingPeriod() : null;
  }

  @Override
  public void handleNameResolutionError(Status error) {
    delegate.handleNameResolutionError(error);
  }

  @Override
  public void requestConnection() {
    delegate.requestConnection();
  }

  @Override
  public void shutdown() {
    delegate.shutdown();
    for (ReportedSubchannel r : subchannels.values()) {
      r.oob.stop();
    }
    subchannels.clear();
  }

  /** lb-grpc's report feed: this load balancer around every policy that reads reports. */
  public static final class Feed implements ReportFeed {
    /** Creates the feed, for {@link java.util.ServiceLoader}. */
    public Feed() {}

    @Override
    public <B extends LoadBalancer & ReportTarget> LoadBalancer wrap(Helper helper,
        Function<Helper, B> inner, BalancerConfig base) {
      return new OrcaLoadBalancer(helper, inner, base);
    }
  }

  /** The helper the inner load balancer sees: subchannels that report. */
  private final class Reporting extends ForwardingLoadBalancerHelper {
    @Override
    protected Helper delegate() {
      return helper;
    }

    @Override
    public Subchannel createSubchannel(CreateSubchannelArgs args) {
      ReportedSubchannel r = new ReportedSubchannel(helper.createSubchannel(args),
          (s, sink) -> new OobStream(s, helper.getSynchronizationContext(),
              helper.getScheduledExecutorService(), new Backoff(base.random()), sink));
      r.oob.configure(oobPeriod());
      subchannels.put(r, r);
      return r;
    }
  }
}
