package dev.ballast.core;

import java.util.List;

/**
 * A balancer that picks from a part of its nodes chosen ahead of any pick, so that whoever
 * connects the nodes (a gRPC policy making subchannels) need connect only that part:
 * deterministic aperture's window is one. Picks outside the window happen only as a degraded
 * pick, when no node of the window is open; a node that is not connected is not open, so such
 * a pick finds none there either.
 *
 * @param <T> the thing being balanced
 */
public interface WindowedBalancer<T> extends Balancer<T> {

  /**
   * Returns the nodes the balancer picks from now, each once; after an {@link #update} it holds
   * only nodes of that update.
   */
  List<Node<T>> window();

  /**
   * Sets what runs each time the window moves other than by an {@link #update} (whose caller
   * reads {@link #window()} again): a load band widening or narrowing it, or a new client
   * coordinate. It runs in the thread that moved the window, a picking one included, so it must
   * be quick and must not block (hand the work to another thread or context). Replaces the
   * earlier one; null removes it.
   */
  void onWindowMoved(Runnable listener);
}
