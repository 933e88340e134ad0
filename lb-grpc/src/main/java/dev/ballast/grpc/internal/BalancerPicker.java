package dev.ballast.grpc.internal;

import dev.ballast.core.Balancer;
import dev.ballast.core.NoAvailableEndpointException;
import dev.ballast.core.Node;
import io.grpc.LoadBalancer.PickResult;
import io.grpc.LoadBalancer.PickSubchannelArgs;
import io.grpc.LoadBalancer.SubchannelPicker;
import io.grpc.MethodDescriptor.MethodType;
import java.util.concurrent.atomic.LongAdder;

/**
 * The picker published while some subchannel is READY: asks the lb-core balancer without
 * counting (lock-free, allocation-free) and hands out one of the backend's prebuilt {@link
 * PickResult}s; the request is counted when its stream starts (see {@link Backend}).
 *
 * <p>Never returns a subchannel that is not READY: lb-core skips nodes that are not open (panic
 * picks are off), and a node added a moment ago, still open by default before its state is
 * bound, is caught by the backend's own ready flag. If nothing is ready (a race with a state
 * change whose new picker is on its way) the pick waits with no result, counted as queued
 * when metrics are kept (the picker is published as it is, with no counting picker around it).
 */
final class BalancerPicker extends SubchannelPicker {

  static final int TRIES = 3;
  static final PickResult WAIT = PickResult.withNoResult();

  private final Balancer<Backend> balancer;
  private final Feedback feedback;
  private final LongAdder queued;
  private final LongAdder failed;
  private final PickFailures failures;

  /**
   * Creates the picker; the metrics' counters, if kept, count the picks that wait and those that
   * fail their call (a pick that throws).
   */
  BalancerPicker(Balancer<Backend> balancer, Feedback feedback, PolicyMetrics metrics,
      PickFailures failures) {
    this.balancer = balancer;
    this.feedback = feedback;
    this.queued = metrics.queuedPicks();
    this.failed = metrics.failedPicks();
    this.failures = failures;
  }

  @Override
  public PickResult pickSubchannel(PickSubchannelArgs args) {
    for (int i = 0; i < TRIES; i++) {
      Node<Backend> node;
      try {
        node = balancer.pickUncounted();
      } catch (NoAvailableEndpointException e) {
        return waits();
      } catch (RuntimeException e) { // a policy's bug
        if (failed != null) {
          failed.increment();
        }
        return failures.failed(balancer.name(), e);
      }
      Backend b = node.value();
      if (b.isReady()) {
        b.countPick();
        return feedback.result(b, args);
      }
    }
    return waits();
  }

  private PickResult waits() {
    if (queued != null) {
      queued.increment();
    }
    return WAIT;
  }

  @Override
  public String toString() {
    return "BalancerPicker{" + balancer + "}";
  }

  /** What a pick's streams report back, by algorithm. */
  enum Feedback {
    /** Nothing: round robin, weighted random, vnswrr. */
    NONE,
    /** Pending counts and outcomes: least_loaded, and swrr's failure drops. */
    COUNTED,
    /** Also the latency of unary calls: peak EWMA (a streaming call's length is no latency). */
    TIMED;

    PickResult result(Backend b, PickSubchannelArgs args) {
      if (this == NONE) {
        return b.plainPick;
      }
      if (this == COUNTED || args.getMethodDescriptor().getType() != MethodType.UNARY) {
        return b.countedPick;
      }
      return b.timedPick;
    }
  }
}
