package dev.ballast.netty.internal;

import dev.ballast.core.Balancer;
import dev.ballast.core.Endpoint;
import dev.ballast.core.HashBalancer;
import dev.ballast.core.Node;
import dev.ballast.core.locality.LocalityBalancer;
import dev.ballast.core.log.StateChangeLog;
import dev.ballast.core.status.BalancerStatus;
import dev.ballast.core.subset.FallbackPolicy;
import dev.ballast.core.subset.SubsetSelector;
import dev.ballast.netty.CallOptions;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;

/**
 * The client's pick layer: given a call's options, returns a node. The plain one is a {@link
 * Balancer} that ignores labels; the label-subset one is lb-core's {@link SubsetSelector}, which
 * routes by the call's {@link CallOptions#requestLabels()} and owns the nodes (its child
 * balancers share them).
 *
 * @param <T> the thing being balanced
 */
public interface Router<T> {

  /** Picks a node for a call; counts one pending request on it. */
  Node<T> pick(CallOptions options);

  /** Replaces the endpoint set; returns the removed nodes. */
  List<Node<T>> update(
      Collection<Endpoint> endpoints, Function<? super Endpoint, ? extends T> values);

  /**
   * Applies a delta (upserts, removed addresses); returns the removed nodes. Only the subset
   * router takes deltas ({@link #takesDeltas}).
   */
  default List<Node<T>> apply(Collection<Endpoint> upserts, Collection<String> removed,
      Function<? super Endpoint, ? extends T> values) {
    throw new UnsupportedOperationException("whole sets only");
  }

  /** Whether {@link #apply} takes deltas. */
  default boolean takesDeltas() {
    return false;
  }

  /** Returns the current nodes. */
  List<Node<T>> nodes();

  /**
   * Returns the nodes a call with these options may go to, whatever their zone, priority or
   * health: every node, or the subset the call's labels choose (its fallback's on a miss). Not
   * for the hot path: a retry looks here only when its picks found no endpoint it has not tried.
   */
  default List<Node<T>> candidates(CallOptions options) {
    return nodes();
  }

  /** Returns the algorithm's name. */
  String name();

  /** Returns the share of its weight a node takes now (slow start), 1 when not ramping. */
  default double ramp(Node<T> node) {
    return 1;
  }

  /** Returns a composite's routes in force, level by level ({@link BalancerStatus#levels}). */
  default List<String> levels() {
    return List.of();
  }

  /** Logs a composite's state changes (a level's panic, a zone's spill) there; default none. */
  default void stateLog(StateChangeLog log) {}

  /**
   * Checks subset settings with lb-core's own rules and returns a copy of the selectors.
   *
   * @throws IllegalArgumentException if there is no selector, a selector has no key, an empty
   *     or repeated key, or is given twice, or if DEFAULT_SUBSET comes without labels
   */
  static List<List<String>> checkSubsets(Collection<? extends Collection<String>> selectors,
      FallbackPolicy fallback, Map<String, String> defaultSubset) {
    Objects.requireNonNull(selectors, "selectors");
    Objects.requireNonNull(fallback, "fallback");
    if (selectors.isEmpty()) {
      throw new IllegalArgumentException("selectors: none (expected: at least one)");
    }
    if (fallback == FallbackPolicy.DEFAULT_SUBSET && defaultSubset == null) {
      throw new IllegalArgumentException(
          "defaultSubset: null (expected: labels when the fallback is DEFAULT_SUBSET)");
    }
    SubsetSelector.Builder<Object> check = SubsetSelector.builder().selectors(selectors);
    if (defaultSubset != null) {
      check.defaultSubset(defaultSubset);
    }
    return selectors.stream().map(List::copyOf).toList();
  }

  /**
   * Returns the router over a balancer: labels are ignored; a balancer that picks by key gets the
   * call's key, if it has one.
   */
  static <T> Router<T> of(Balancer<T> balancer) {
    HashBalancer<T> byKey = balancer instanceof HashBalancer ? (HashBalancer<T>) balancer : null;
    return new Router<T>() {
      @Override
      public Node<T> pick(CallOptions options) {
        String key = byKey == null ? null : options.key();
        return key != null ? byKey.pick(key) : balancer.pick();
      }

      @Override
      public List<Node<T>> update(Collection<Endpoint> endpoints,
          Function<? super Endpoint, ? extends T> values) {
        return balancer.update(endpoints, values);
      }

      @Override
      public List<Node<T>> nodes() {
        return balancer.nodes();
      }

      @Override
      public String name() {
        return balancer.name();
      }

      @Override
      public double ramp(Node<T> node) {
        return balancer.ramp(node);
      }

      @Override
      public List<String> levels() {
        return BalancerStatus.levels(balancer);
      }

      @Override
      public void stateLog(StateChangeLog log) {
        if (balancer instanceof LocalityBalancer<T> l) {
          l.stateLog(log);
        }
      }
    };
  }

  /**
   * Returns the router over a subset selector: each call goes to the subset its labels name
   * (allocation-free for labels built once), or to the selector's fallback, and its key to that
   * subset's child if it picks by key.
   */
  static <T> Router<T> of(SubsetSelector<T> selector) {
    return new Router<T>() {
      @Override
      public Node<T> pick(CallOptions options) {
        return selector.pick(options.requestLabels(), options.key());
      }

      @Override
      public List<Node<T>> update(Collection<Endpoint> endpoints,
          Function<? super Endpoint, ? extends T> values) {
        return selector.update(endpoints, values);
      }

      @Override
      public List<Node<T>> apply(Collection<Endpoint> upserts, Collection<String> removed,
          Function<? super Endpoint, ? extends T> values) {
        return selector.apply(upserts, removed, values);
      }

      @Override
      public boolean takesDeltas() {
        return true;
      }

      @Override
      public List<Node<T>> nodes() {
        return selector.nodes();
      }

      @Override
      public List<Node<T>> candidates(CallOptions options) {
        List<Node<T>> members = selector.members(options.requestLabels());
        return members.isEmpty() ? selector.fallbackMembers() : members;
      }

      @Override
      public String name() {
        return selector.name();
      }

      @Override
      public List<String> levels() {
        return BalancerStatus.levels(selector);
      }
    };
  }
}
