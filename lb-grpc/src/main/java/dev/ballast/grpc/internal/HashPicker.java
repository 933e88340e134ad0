package dev.ballast.grpc.internal;

import dev.ballast.core.HashBalancer;
import dev.ballast.core.HashConfig;
import dev.ballast.core.NoAvailableEndpointException;
import dev.ballast.core.Node;
import io.grpc.CallOptions;
import io.grpc.LoadBalancer.PickResult;
import io.grpc.LoadBalancer.PickSubchannelArgs;
import io.grpc.LoadBalancer.SubchannelPicker;
import io.grpc.Metadata;
import java.util.Iterator;

/**
 * The picker of a policy that picks by key. A call's key is the call option if set, else the
 * request header's value (gRFC A76: repeated values joined with commas), hashed with the
 * algorithm's own function; a call with neither gets a random hash, as gRPC's {@code ring_hash}
 * does without its header. The pick counts nothing; with bounded loads, or for a policy that
 * counts or times calls, the call counts on the node from its stream's start to its end (the
 * stream tracer, see {@link Backend}).
 */
final class HashPicker extends SubchannelPicker {

  private final HashBalancer<Backend> balancer;
  private final Metadata.Key<String> header;
  private final CallOptions.Key<String> keyOption;
  private final BalancerPicker.Feedback feedback;
  private final PickFailures failures;

  /** Creates the picker (published through the counting picker when metrics are kept). */
  HashPicker(HashBalancer<Backend> balancer, PolicyConfig policy, PickFailures failures) {
    this.failures = failures;
    HashConfig hash = policy.hash();
    String header = hash.requestHashHeader();
    this.balancer = balancer;
    this.header = header == null ? null : Metadata.Key.of(header, Metadata.ASCII_STRING_MARSHALLER);
    this.keyOption = HashLoadBalancer.REQUEST_KEY;
    // what the policy reads (a team's keyed policy may count calls), and bounded loads count
    BalancerPicker.Feedback reads = BalancerLoadBalancer.feedback(policy.traits());
    this.feedback = reads == BalancerPicker.Feedback.NONE && hash.loadBound() > 0
        ? BalancerPicker.Feedback.COUNTED : reads;
  }

  @Override
  public PickResult pickSubchannel(PickSubchannelArgs args) {
    String key = key(args);
    Node<Backend> node;
    try {
      // counted when its stream starts (see Backend)
      node = key != null ? balancer.pickUncounted(balancer.hash(key)) : balancer.pickUncounted();
    } catch (NoAvailableEndpointException e) {
      return BalancerPicker.WAIT;
    } catch (RuntimeException e) {
      return failures.failed(balancer.name(), e);
    }
    Backend b = node.value();
    if (!b.isReady()) {
      // the node was open but its subchannel left READY a moment ago; its new picker is on its
      // way, and another pick of the same key would meet the same node
      return BalancerPicker.WAIT;
    }
    b.countPick();
    return feedback.result(b, args);
  }

  private String key(PickSubchannelArgs args) {
    String key = args.getCallOptions().getOption(keyOption);
    if (key != null || header == null) {
      return key;
    }
    Iterable<String> values = args.getHeaders().getAll(header);
    if (values == null) {
      return null;
    }
    Iterator<String> it = values.iterator();
    String first = it.next();
    if (!it.hasNext()) {
      return first;
    }
    StringBuilder joined = new StringBuilder(first);
    while (it.hasNext()) {
      joined.append(',').append(it.next());
    }
    return joined.toString();
  }

  @Override
  public String toString() {
    return "HashPicker{" + balancer + "}";
  }
}
