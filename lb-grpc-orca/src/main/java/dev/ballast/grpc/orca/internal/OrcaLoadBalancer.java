package dev.ballast.grpc.orca.internal;

import dev.ballast.core.Algorithm;
import dev.ballast.core.BalancerConfig;
import dev.ballast.core.Node;
import dev.ballast.core.load.WeightedRoundRobinConfig;
import dev.ballast.grpc.internal.BalancerLoadBalancer;
import dev.ballast.grpc.internal.PolicyConfig;
import io.grpc.ConnectivityState;
import io.grpc.LoadBalancer;
import io.grpc.Status;
import io.grpc.util.ForwardingLoadBalancerHelper;
import io.grpc.xds.orca.OrcaOobUtil;
import java.time.Duration;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * lb-grpc's {@link BalancerLoadBalancer} of an algorithm that reads load reports, with ORCA's
 * reports fed to its nodes.
 *
 * <p>Contract: every method runs in the channel's synchronization context, as gRPC's API says.
 * Subchannels are made through grpc-xds's ORCA reporting helper ({@link
 * OrcaOobUtil#newOrcaReportingHelper}), which runs the out-of-band stream when a listener is set
 * and does not retry it on UNIMPLEMENTED. With {@code enableOobLoadReport} off (the default,
 * as A58), each pick carries a per-call report listener instead ({@code endpoint-load-metrics-bin}
 * trailers), built into the backends' pick results ({@link ReportedSubchannel#PER_CALL}), so
 * that the inner load balancer's picker is published as it is. After each address update, each
 * subchannel's listener is bound to the node that balances it; reports for a subchannel no node
 * balances are dropped.
 */
public final class OrcaLoadBalancer extends LoadBalancer {

  private final Made channelHelper;
  private final Helper orcaHelper;
  private final BalancerLoadBalancer delegate;
  // the inner load balancer's subchannels (synchronization context)
  private final Map<Subchannel, ReportedSubchannel> subchannels = new HashMap<>();
  private WeightedRoundRobinConfig reports = WeightedRoundRobinConfig.defaults();

  /**
   * Creates the load balancer.
   *
   * @param base the lb-core settings the policy config is applied to (ticker, random source)
   * @param policyName the provider's policy name, its meters' {@code policy} tag
   */
  public OrcaLoadBalancer(Helper helper, Algorithm algorithm, BalancerConfig base,
      String policyName) {
    this.channelHelper = new Made(helper);
    this.orcaHelper = OrcaOobUtil.newOrcaReportingHelper(channelHelper);
    this.delegate = new BalancerLoadBalancer(new Reporting(), algorithm, base, policyName);
  }

  @Override
  public Status acceptResolvedAddresses(ResolvedAddresses resolved) {
    Object config = resolved.getLoadBalancingPolicyConfig();
    WeightedRoundRobinConfig next = config instanceof PolicyConfig p ? p.reports() : reports;
    boolean oobChanged = next.enableOobLoadReport() != reports.enableOobLoadReport()
        || !next.oobReportingPeriod().equals(reports.oobReportingPeriod());
    reports = next;
    delegate.pickResults(next.enableOobLoadReport()
        ? ReportedSubchannel.OUT_OF_BAND : ReportedSubchannel.PER_CALL);
    Status status = delegate.acceptResolvedAddresses(resolved);
    bind();
    if (oobChanged) {
      for (ReportedSubchannel r : subchannels.values()) {
        listen(r);
      }
    }
    return status;
  }

  /** Binds each subchannel's listener to its node; forgets the subchannels no node balances. */
  private void bind() {
    Map<Subchannel, Node<?>> nodes = new HashMap<>();
    delegate.forEachNode(nodes::put);
    for (Iterator<ReportedSubchannel> it = subchannels.values().iterator(); it.hasNext(); ) {
      ReportedSubchannel r = it.next();
      r.node = nodes.get(r);
      if (r.node == null) {
        it.remove();
      }
    }
  }

  /** Sets or clears the subchannel's out-of-band listener, as the config says. */
  private void listen(ReportedSubchannel r) {
    if (reports.enableOobLoadReport()) {
      OrcaOobUtil.setListener(r.subchannel, r, OrcaOobUtil.OrcaReportingConfig.newBuilder()
          .setReportInterval(nanos(reports.oobReportingPeriod()), TimeUnit.NANOSECONDS).build());
    } else {
      OrcaOobUtil.setListener(r.subchannel, null, null);
    }
  }

  private static long nanos(Duration d) {
    return d.toNanos();
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
    subchannels.clear();
  }

  /** The helper the inner load balancer sees: subchannels that report. */
  private final class Reporting extends ForwardingLoadBalancerHelper {
    @Override
    protected Helper delegate() {
      return orcaHelper;
    }

    /**
     * Publishes the picker to the channel as it is: ORCA's helper would wrap it in a picker that
     * unwraps ORCA's subchannels, but the results already carry the channel's own.
     */
    @Override
    public void updateBalancingState(ConnectivityState state, SubchannelPicker picker) {
      channelHelper.updateBalancingState(state, picker);
    }

    @Override
    public Subchannel createSubchannel(CreateSubchannelArgs args) {
      Subchannel s = orcaHelper.createSubchannel(args);
      ReportedSubchannel r = new ReportedSubchannel(s, channelHelper.last);
      subchannels.put(r, r);
      if (reports.enableOobLoadReport()) {
        listen(r);
      }
      return r;
    }
  }

  /** The channel's helper, keeping the subchannel it made last (under ORCA's). */
  private static final class Made extends ForwardingLoadBalancerHelper {
    private final Helper channel;
    Subchannel last;

    Made(Helper channel) {
      this.channel = channel;
    }

    @Override
    protected Helper delegate() {
      return channel;
    }

    @Override
    public Subchannel createSubchannel(CreateSubchannelArgs args) {
      last = channel.createSubchannel(args);
      return last;
    }
  }
}
