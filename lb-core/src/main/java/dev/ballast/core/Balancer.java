package dev.ballast.core;

import java.util.Collection;
import java.util.List;
import java.util.function.Function;

/**
 * Picks a node for each request among a set of endpoints that can change while picks go on.
 *
 * <p>The balancer holds an immutable snapshot (the nodes and the algorithm's precomputed tables)
 * in a volatile field: {@link #pick()} reads it without locks; {@link #update} builds the next
 * snapshot and swaps it in. A node whose address survives an update keeps its load state.
 *
 * <p>Create one with {@link Algorithm#create(BalancerConfig)} or the algorithm's constructor, in
 * its family's package: {@code dev.ballast.core.roundrobin} ({@code RoundRobin}, {@code
 * WeightedRandom}, {@code SmoothWeightedRoundRobin}, {@code Vnswrr}), {@code
 * dev.ballast.core.loadaware} ({@code LeastLoaded}, {@code P2cPeakEwma}, and the ones that read
 * load reports), {@code dev.ballast.core.aperture}; and the ones that pick by key ({@link
 * HashBalancer}) in {@code dev.ballast.core.hash}: {@code RingHash}, {@code Ketama}, {@code
 * Maglev}. Composite balancers (label subsets,
 * priorities and localities) drive their children through {@link
 * dev.ballast.core.ChildBalancer}, which every balancer of these algorithms is.
 *
 * @param <T> the thing being balanced (a connection pool, a gRPC subchannel)
 */
public interface Balancer<T> {

  /**
   * Picks a node and counts one pending request on it; end it with {@link Node#complete} or
   * {@link Node#cancel}. Skips nodes that are not {@link Availability#OPEN} with bounded effort.
   *
   * @throws NoAvailableEndpointException if the set is empty, or no node is open and the config
   *     does not allow a {@linkplain BalancerConfig#panicPick() panic pick}
   */
  Node<T> pick();

  /**
   * Picks as {@link #pick()} does but counts no pending request: for callers that count the
   * request with {@link Node#start()} only once it is really sent (gRPC creates a call's stream
   * after the pick, and may drop a pick whose transport went away), or that report nothing back
   * (round robin and weighted random need no feedback; load-aware algorithms then see no load).
   * Default: {@link #pick()}, then {@link Node#cancel()}; lb-core's balancers count nothing.
   *
   * @throws NoAvailableEndpointException as {@link #pick()}
   */
  default Node<T> pickUncounted() {
    Node<T> node = pick();
    node.cancel();
    return node;
  }

  /**
   * Replaces the endpoint set atomically. Nodes whose address stays keep their state and value
   * and take the new weight and labels; new addresses get a node whose value is made by {@code
   * values}, called only after the whole set is validated: a rejected set makes no value.
   *
   * @return the nodes removed by this update, so their values can be closed or drained
   * @throws IllegalArgumentException if two endpoints share an address, the weights add up to
   *     more than {@link Integer#MAX_VALUE}, or the algorithm cannot hold the set; the previous
   *     set then stays in force, untouched
   */
  List<Node<T>> update(Collection<Endpoint> endpoints, Function<? super Endpoint, ? extends T> values);

  /** Returns the current nodes, in update order. */
  List<Node<T>> nodes();

  /** Returns the algorithm's name, e.g. {@code vnswrr}. */
  String name();

  /**
   * Returns the share of its weight {@code node} takes now: below 1 while it ramps up under
   * {@linkplain BalancerConfig#slowStartWindow() slow start}, else 1 (the default). Read for
   * status, never by a pick.
   */
  default double ramp(Node<T> node) {
    return 1;
  }
}
