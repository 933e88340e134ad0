package dev.ballast.netty;

import dev.ballast.core.NoAvailableEndpointException;
import dev.ballast.core.Node;

/**
 * The pick module: subset selection by the call's labels and the balancer's pick, both done by
 * the {@link Router}; a retry or a hedge avoids the endpoints the call has already tried, with
 * bounded effort (3 more picks).
 */
final class Picker<Req, Rep> {

  private static final int AVOID_EFFORT = 3;

  private final Router<EndpointClient<Req, Rep>> router;

  Picker(Router<EndpointClient<Req, Rep>> router) {
    this.router = router;
  }

  /**
   * Picks a node for the call's next attempt (counting one pending request on it); for a hedge,
   * returns null when only tried endpoints came up.
   *
   * @throws NoAvailableEndpointException when there is nothing to pick
   */
  Node<EndpointClient<Req, Rep>> pick(Call<Req, Rep> call, boolean hedge) {
    Node<EndpointClient<Req, Rep>> node = router.pick(call.options);
    for (int i = 0; i < AVOID_EFFORT && tried(call, node.value()); i++) {
      node.cancel();
      node = router.pick(call.options);
    }
    if (hedge && tried(call, node.value())) {
      node.cancel();
      return null;
    }
    return node;
  }

  private static <Req, Rep> boolean tried(Call<Req, Rep> call, EndpointClient<Req, Rep> ep) {
    for (Attempt<Req, Rep> a = call.last; a != null; a = a.previous) {
      if (a.ep == ep) {
        return true;
      }
    }
    return false;
  }
}
