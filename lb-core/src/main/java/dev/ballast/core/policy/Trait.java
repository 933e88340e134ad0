package dev.ballast.core.policy;

/**
 * What a {@link BalancingPolicy} reads besides its nodes, so that a front end provides it only
 * when it counts (a gRPC picker times a call's stream only for a policy that {@link
 * #TIMES_CALLS}).
 */
public enum Trait {
  /** Picks by a request's key: its balancers are {@link dev.ballast.core.HashBalancer}s. */
  PICKS_BY_KEY,
  /** Reads servers' load reports ({@link dev.ballast.core.Node#reportLoad}). */
  READS_REPORTS,
  /** Reads requests in flight and failures: every pick must be completed or cancelled. */
  COUNTS_CALLS,
  /** Reads each call's latency: completions should come with it. */
  TIMES_CALLS
}
