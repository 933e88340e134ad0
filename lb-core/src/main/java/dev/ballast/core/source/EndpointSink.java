package dev.ballast.core.source;

import dev.ballast.core.Balancer;
import dev.ballast.core.Endpoint;
import dev.ballast.core.Node;
import dev.ballast.core.subset.SubsetSelector;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * Where an {@link EndpointFeed} applies the endpoints it accepted: a balancer, a subset
 * selector, a client, a gRPC name resolver. The feed calls it from one thread at a time.
 */
public interface EndpointSink {

  /**
   * Replaces the whole set.
   *
   * @throws IllegalArgumentException if the target refuses the set; it then keeps the previous
   *     one, and the feed tries again with its next change
   */
  void update(List<Endpoint> endpoints);

  /** Whether {@link #apply} takes changes; false by default: the feed sends whole sets. */
  default boolean takesDeltas() {
    return false;
  }

  /**
   * Applies a change: endpoints added or changed, and addresses removed. Only called when
   * {@link #takesDeltas()}.
   *
   * @throws IllegalArgumentException if the target refuses the change (as {@link #update})
   */
  default void apply(Collection<Endpoint> upserts, Collection<String> removedAddresses) {
    throw new UnsupportedOperationException("whole sets only");
  }

  /**
   * The source reported a failure (unreachable, session or watch lost): the sink keeps what it
   * has and the source retries on its own. Called on the feed's scheduler, as the other methods,
   * once per failure reported. Default: nothing.
   */
  default void sourceFailed(Throwable cause) {}

  /**
   * Returns a sink feeding a balancer whole sets; new nodes get a value from {@code values},
   * and each removed node is handed to {@code removed} (to close its value).
   */
  static <T> EndpointSink of(Balancer<T> balancer, Function<? super Endpoint, ? extends T> values,
      Consumer<? super Node<T>> removed) {
    Objects.requireNonNull(balancer, "balancer");
    Objects.requireNonNull(values, "values");
    Objects.requireNonNull(removed, "removed");
    return endpoints -> balancer.update(endpoints, values).forEach(removed);
  }

  /**
   * Returns a sink feeding a subset selector changes through {@link SubsetSelector#apply}, so a
   * push touching a few endpoints rebuilds only the subsets they are in; new nodes get a value
   * from {@code values}, and each removed node is handed to {@code removed}.
   */
  static <T> EndpointSink of(SubsetSelector<T> selector,
      Function<? super Endpoint, ? extends T> values, Consumer<? super Node<T>> removed) {
    Objects.requireNonNull(selector, "selector");
    Objects.requireNonNull(values, "values");
    Objects.requireNonNull(removed, "removed");
    return new EndpointSink() {
      @Override
      public void update(List<Endpoint> endpoints) {
        selector.update(endpoints, values).forEach(removed);
      }

      @Override
      public boolean takesDeltas() {
        return true;
      }

      @Override
      public void apply(Collection<Endpoint> upserts, Collection<String> removedAddresses) {
        selector.apply(upserts, removedAddresses, values).forEach(removed);
      }
    };
  }
}
