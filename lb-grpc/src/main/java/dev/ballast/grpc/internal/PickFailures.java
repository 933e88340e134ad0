package dev.ballast.grpc.internal;

import dev.ballast.core.log.StateChangeLog;
import io.grpc.LoadBalancer.PickResult;
import io.grpc.Status;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A channel's picks that threw (a policy's bug, ours or a team's): each fails its call at once
 * with {@code UNAVAILABLE} naming the policy and the cause, and the first is logged ({@code
 * dev.ballast.state}, WARNING, with the stack trace), once a policy instance (gRPC makes one
 * when a channel leaves idle): every pick may throw alike. Thrown into the channel instead, the
 * exception would panic it for good ("Panic! This is a bug!"). Shared by the policy's
 * successive pickers; any thread.
 */
final class PickFailures {

  private final String channel;
  private final AtomicBoolean logged = new AtomicBoolean();

  /** For the channel of this authority. */
  PickFailures(String channel) {
    this.channel = channel;
  }

  /**
   * Returns the result that fails the call: a drop, so that a wait-for-ready call fails too, as
   * with gRPC's own panic picker.
   */
  PickResult failed(String policy, RuntimeException e) {
    String what = "balancing policy " + policy + " failed to pick: " + e;
    if (logged.compareAndSet(false, true)) {
      System.getLogger(StateChangeLog.LOGGER).log(System.Logger.Level.WARNING,
          "channel " + channel + ": " + what + " (logged once)", e);
    }
    return PickResult.withDrop(Status.UNAVAILABLE.withDescription(what).withCause(e));
  }
}
