package dev.ballast.grpc.internal;

import io.grpc.CallOptions;
import io.grpc.ConnectivityState;
import io.grpc.EquivalentAddressGroup;
import io.grpc.LoadBalancer;
import io.grpc.LoadBalancerProvider;
import io.grpc.LoadBalancerRegistry;
import io.grpc.Metadata;
import io.grpc.Status;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * gRPC-java's own {@code ring_hash_experimental} policy (grpc-xds), run through its provider in
 * a {@link FakeHelper} whose subchannels all become READY, so a test can ask which address it
 * sends a key to. Its children connect lazily (a pick on an idle entry asks for a connection), so
 * {@link #start} picks until every address has a READY subchannel.
 */
final class GrpcRingHash implements AutoCloseable {

  static final String POLICY = "ring_hash_experimental";

  static {
    // gRFC A76's requestHashHeader is read only with this flag (environment or system property)
    System.setProperty("GRPC_EXPERIMENTAL_RING_HASH_SET_REQUEST_HASH_KEY", "true");
  }

  private final FakeHelper helper = new FakeHelper();
  private final LoadBalancer lb;
  private final Metadata.Key<String> header;
  private int ready;

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
    helper.syncContext.execute(() -> {
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
    SplittableRandom random = new SplittableRandom(7);
    for (int i = 0; i < 1000 * groups.size() && ring.ready < groups.size(); i++) {
      ring.pick("warm-" + random.nextLong());
      ring.connectNew();
    }
    if (ring.ready < groups.size()) {
      throw new AssertionError("only " + ring.ready + " of " + groups.size()
          + " children connected");
    }
    return ring;
  }

  /** Reports CONNECTING then READY on the subchannels made since the last call. */
  private void connectNew() {
    List<FakeHelper.FakeSubchannel> all = helper.subchannels;
    for (FakeHelper.FakeSubchannel s : new ArrayList<>(all.subList(ready, all.size()))) {
      ready++;
      helper.syncContext.execute(() -> s.set(ConnectivityState.CONNECTING));
      helper.syncContext.execute(() -> s.set(ConnectivityState.READY));
    }
  }

  /** Returns the first address of the subchannel gRPC-java picks for the key, or null if none. */
  SocketAddress pick(String key) {
    LoadBalancer.PickResult r = helper.picker.pickSubchannel(FakeHelper.pickArgs(
        FakeHelper.headers(header.originalName(), key), CallOptions.DEFAULT));
    LoadBalancer.Subchannel sc = r.getSubchannel();
    return sc == null ? null : sc.getAllAddresses().get(0).getAddresses().get(0);
  }

  @Override
  public void close() {
    helper.syncContext.execute(lb::shutdown);
  }
}
