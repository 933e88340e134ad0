package dev.ballast.grpc.internal;

import dev.ballast.core.Availability;
import dev.ballast.core.NoAvailableEndpointException;
import dev.ballast.core.Node;
import dev.ballast.core.subset.RequestLabels;
import dev.ballast.core.subset.SubsetSelector;
import io.grpc.LoadBalancer.PickResult;
import io.grpc.LoadBalancer.PickSubchannelArgs;
import io.grpc.LoadBalancer.SubchannelPicker;
import io.grpc.Status;
import java.util.List;

/**
 * The {@code label_subset} picker: reads the request labels, lets the subset selector pick, and
 * never returns a subchannel that is not READY.
 *
 * <p>When the selector finds nothing: a request whose labels match no subset, with nothing to
 * fall back to, fails with UNAVAILABLE naming the labels; a subset (or fallback set) whose
 * members are still connecting makes the call wait for the next picker; one whose members have
 * all failed fails with UNAVAILABLE. Any other exception of the selector (a child policy's bug,
 * or a child refusing its members at its subset's first pick) fails the call at once, through
 * {@link PickFailures}.
 */
final class LabelSubsetPicker extends SubchannelPicker {

  private final SubsetSelector<Backend> selector;
  private final RequestLabelReader reader;
  private final BalancerPicker.Feedback feedback;
  private final PickFailures failures;

  LabelSubsetPicker(SubsetSelector<Backend> selector, RequestLabelReader reader,
      BalancerPicker.Feedback feedback, PickFailures failures) {
    this.selector = selector;
    this.reader = reader;
    this.feedback = feedback;
    this.failures = failures;
  }

  @Override
  public PickResult pickSubchannel(PickSubchannelArgs args) {
    RequestLabels labels = reader.read(args);
    for (int i = 0; i < BalancerPicker.TRIES; i++) {
      Node<Backend> node;
      try {
        node = selector.pickUncounted(labels); // counted when its stream starts (see Backend)
      } catch (NoAvailableEndpointException e) {
        return nothingToPick(labels, e);
      } catch (RuntimeException e) {
        return failures.failed(selector.name() + " (request labels " + labels + ")", e);
      }
      Backend b = node.value();
      if (b.isReady()) {
        b.countPick();
        return feedback.result(b, args);
      }
    }
    return BalancerPicker.WAIT;
  }

  private PickResult nothingToPick(RequestLabels labels, NoAvailableEndpointException e) {
    List<Node<Backend>> members = selector.members(labels);
    if (members.isEmpty()) {
      members = selector.fallbackMembers();
    }
    if (members.isEmpty()) {
      return PickResult.withError(Status.UNAVAILABLE.withDescription(e.getMessage()));
    }
    for (Node<Backend> n : members) {
      if (n.availability() != Availability.CLOSED) {
        return BalancerPicker.WAIT; // connecting: the next picker will have it
      }
    }
    return PickResult.withError(Status.UNAVAILABLE.withDescription(selector.name()
        + ": all " + members.size() + " endpoints for request labels " + labels
        + " failed to connect"));
  }

  @Override
  public String toString() {
    return "LabelSubsetPicker{" + selector.name() + "}";
  }
}
