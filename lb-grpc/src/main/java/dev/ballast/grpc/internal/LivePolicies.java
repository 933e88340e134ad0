package dev.ballast.grpc.internal;

import dev.ballast.core.status.BalancerStatus;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * The Ballast policies alive in this class loader, each under its channel's authority: a policy
 * joins when its channel makes it and leaves when the channel shuts it down. Read by {@code
 * BallastGrpc.status}; registering costs one map entry per policy, nothing per call.
 */
public final class LivePolicies {

  private static final Set<Entry> LIVE = ConcurrentHashMap.newKeySet();

  private LivePolicies() {}

  /** A live policy: its channel's authority and how to read its status. */
  public record Entry(String authority, Supplier<BalancerStatus> status) {}

  static Entry add(String authority, Supplier<BalancerStatus> status) {
    Entry e = new Entry(authority, status);
    LIVE.add(e);
    return e;
  }

  static void remove(Entry e) {
    LIVE.remove(e);
  }

  /** Returns the live policies whose channel has this authority, or all of them if null. */
  public static List<Entry> of(String authority) {
    List<Entry> out = new ArrayList<>();
    for (Entry e : LIVE) {
      if (authority == null || authority.equals(e.authority())) {
        out.add(e);
      }
    }
    return out;
  }
}
