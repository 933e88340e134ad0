package dev.ballast.grpc;

import dev.ballast.core.status.BalancerStatus;
import dev.ballast.grpc.internal.LivePolicies;
import io.grpc.ManagedChannel;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;

/**
 * What the Ballast policies of this JVM's gRPC channels are doing: the same {@link
 * BalancerStatus} that lb-netty's {@code BallastClient#status()} gives, one per live policy,
 * named by its channel's authority. A policy is live from when its channel makes it (at the
 * channel's first address update) until the channel shuts it down.
 *
 * <pre>{@code
 * for (BalancerStatus s : BallastGrpc.status(channel)) {
 *   s.endpoints().forEach(e -> System.out.println(e.address() + " " + e.health()));
 * }
 * }</pre>
 *
 * <p>Each status is read in its channel's synchronization context (gRPC's rule for a policy's
 * state), so do not call these methods from a load balancer's own callbacks.
 */
public final class BallastGrpc {

  private BallastGrpc() {}

  /**
   * Returns the status of the Ballast policies of channels with this channel's {@linkplain
   * ManagedChannel#authority() authority}: one for a channel, more if several channels share
   * the authority, none if the channel does not use a Ballast policy.
   */
  public static List<BalancerStatus> status(ManagedChannel channel) {
    return status(Objects.requireNonNull(channel, "channel").authority());
  }

  /** Returns the status of the live Ballast policies of channels with this authority. */
  public static List<BalancerStatus> status(String authority) {
    return read(LivePolicies.of(Objects.requireNonNull(authority, "authority")));
  }

  /** Returns the status of every live Ballast policy, by authority. */
  public static List<BalancerStatus> status() {
    return read(LivePolicies.of(null));
  }

  private static List<BalancerStatus> read(List<LivePolicies.Entry> entries) {
    List<BalancerStatus> out = new ArrayList<>(entries.size());
    for (LivePolicies.Entry e : entries) {
      out.add(e.status().get());
    }
    out.sort(Comparator.comparing(BalancerStatus::name));
    return out;
  }
}
