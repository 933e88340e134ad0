package dev.ballast.netty.internal;

import dev.ballast.core.Availability;
import dev.ballast.core.Health;
import dev.ballast.core.NoAvailableEndpointException;
import dev.ballast.core.Node;
import dev.ballast.core.load.EndpointLoadMetrics;
import dev.ballast.core.log.StateChangeLog;
import dev.ballast.netty.Classification;
import dev.ballast.netty.ResponseClassifier;
import dev.ballast.netty.Role;
import dev.ballast.netty.error.ClientClosedException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.random.RandomGenerator;

/**
 * The balancer's module, the first at attempt level. Down: subset selection by the call's labels
 * and the balancer's pick, both done by the {@link Router} (a retry or a hedge avoids the
 * endpoints the call has already tried, with bounded effort: 3 more picks, as Envoy's {@code
 * previous_hosts} predicate, then, for a retry without a key, one scan of the call's candidates
 * for an open, untried one, as lb-core's distributors scan after their effort; a hedge is not
 * sent); the attempt starts on the picked node. Up: every pick ends with {@code Node.complete}
 * (latency and outcome) when the request was written, else with {@code Node.cancel}, so that
 * pending counts return to 0 and load-aware balancers see real latency: from when the request
 * got its connection, so that the first call's sample does not count the connection's opening.
 * A request awaiting its late answer completes its node only when that answer comes ({@link
 * #lateAnswer}).
 */
final class BalancerModule<Req, Rep> extends AttemptLayer<Req, Rep> {

  /** Takes a hedge from the hedge budget (the hedging module). */
  interface HedgeGate {
    /** Returns whether a hedge may be sent now, the balancer having found an endpoint for it. */
    boolean tryHedge();
  }

  private static final int AVOID_EFFORT = 3;

  private final Router<EndpointClient<Req, Rep>> router;
  private final Endpoints<Req, Rep> endpoints;
  private final ResponseClassifier<Req, Rep> classifier;
  private final Protocol<Req, Rep> protocol;
  private final RandomGenerator random;
  private final AtomicBoolean policyFailureLogged = new AtomicBoolean();
  /** This module as linked in the chain (itself, or itself traced). */
  AttemptLayer<Req, Rep> entry;

  BalancerModule(Endpoints<Req, Rep> endpoints, ResponseClassifier<Req, Rep> classifier,
      Protocol<Req, Rep> protocol, RandomGenerator random) {
    super(Role.BALANCER);
    this.protocol = protocol;
    this.random = random;
    this.router = endpoints.router;
    this.endpoints = endpoints;
    this.classifier = classifier;
  }

  /**
   * Picks a node and starts an attempt of the call on it, unless the call is decided; for a
   * hedge, only on an endpoint not tried yet and if {@code gate} allows.
   */
  void start(Call<Req, Rep> call, boolean hedge, HedgeGate gate) {
    if (call.isDecided()) {
      return;
    }
    // read before the pick: the source's first endpoints may come while it runs
    boolean beforeFirst = !hedge && call.attempts == 0 && endpoints.awaitingFirst();
    Node<EndpointClient<Req, Rep>> node;
    try {
      node = pick(call, hedge);
    } catch (RuntimeException | Error e) { // NoAvailableEndpointException, mostly
      boolean bug = e instanceof RuntimeException && !(e instanceof NoAvailableEndpointException);
      if (bug && policyFailureLogged.compareAndSet(false, true)) {
        System.getLogger(StateChangeLog.LOGGER).log(System.Logger.Level.WARNING,
            policyFailure(e), e); // once a client: every pick may throw alike
      }
      if (beforeFirst) { // the call waits for them, or picks again at once if they just came
        endpoints.awaitFirst(() -> startWaited(call));
        return;
      }
      if (!hedge && call.live() == 0) {
        // a retry found nothing to pick: the last attempt's outcome stands
        Attempt<Req, Rep> last = call.last;
        if (last != null) {
          call.decide(last.response, last.failure, last, null);
        } else {
          call.decide(null, bug ? policyFailed(e) : e, null, null);
        }
      }
      return;
    }
    if (node == null || (hedge && !gate.tryHedge())) {
      if (node != null) {
        node.cancel();
      }
      return;
    }
    int number = call.nextAttempt(hedge);
    // the first attempt of a call without filters starts as the call does: one clock reading
    long start = number == 1 && call.core == null ? call.start : call.chain.ticker.nanoTime();
    Attempt<Req, Rep> a = new Attempt<>(call, node, number, hedge, start);
    a.reached = entry;
    call.link(a);
    if (call.isDecided()) {
      a.abandon(null);
      return;
    }
    entry.enter(a);
  }

  private String policyFailure(Throwable e) {
    return "client " + endpoints.client() + ": balancing policy " + router.name()
        + " failed to pick: " + e;
  }

  /**
   * A first attempt's pick that threw (a policy's bug): the call fails as when nothing can be
   * picked, naming the client, the policy and the cause (a retry or a hedge whose pick throws
   * keeps the last attempt's outcome); the client logs the first such failure
   * ({@code dev.ballast.state}, WARNING).
   */
  private NoAvailableEndpointException policyFailed(Throwable e) {
    NoAvailableEndpointException failed =
        new NoAvailableEndpointException(router.name(), router.nodes().size(), policyFailure(e));
    failed.initCause(e);
    return failed;
  }

  // A call that waited for the source's first endpoints: they came, or the wait ended.
  private void startWaited(Call<Req, Rep> call) {
    if (call.chain.closed.get()) {
      call.end(new ClientClosedException("client " + endpoints.client() + " closed before its "
          + "source gave endpoints", null, 0, false));
    } else {
      start(call, false, null);
    }
  }

  /**
   * Picks a node for the call's next attempt (counting one pending request on it); for a hedge,
   * returns null when only tried endpoints came up.
   *
   * @throws NoAvailableEndpointException when there is nothing to pick
   */
  private Node<EndpointClient<Req, Rep>> pick(Call<Req, Rep> call, boolean hedge) {
    Node<EndpointClient<Req, Rep>> node = router.pick(call.options);
    for (int i = 0; i < AVOID_EFFORT && tried(call, node.value()); i++) {
      node.cancel();
      node = router.pick(call.options);
    }
    if (!tried(call, node.value())) {
      return node;
    }
    if (hedge) {
      node.cancel();
      return null;
    }
    // A retry whose picks keep coming back to tried endpoints: a composite routes every pick to
    // a part (a zone, 100% local while its dead endpoints are not yet ejected) whose endpoints
    // the call has all tried. Look past it once, but not for a key, whose node is its endpoint.
    Node<EndpointClient<Req, Rep>> other = call.options.key() == null ? untried(call, node)
        : null;
    if (other == null) {
      return node; // the retry goes where the pick says
    }
    node.cancel();
    other.start();
    return other;
  }

  /**
   * Scans the call's candidates once, from a random place, for an open endpoint it has not
   * tried, the nearest to the picked one first: its priority, then its zone, then healthy before
   * degraded; null if none. O(N) and a copy of the node list, paid only when a retry's picks all
   * came back to tried endpoints.
   */
  private Node<EndpointClient<Req, Rep>> untried(Call<Req, Rep> call,
      Node<EndpointClient<Req, Rep>> picked) {
    List<Node<EndpointClient<Req, Rep>>> nodes = router.candidates(call.options);
    int n = nodes.size();
    Node<EndpointClient<Req, Rep>> best = null;
    int bestRank = Integer.MAX_VALUE;
    for (int i = 0, start = n == 0 ? 0 : random.nextInt(n); i < n && bestRank > 0; i++) {
      Node<EndpointClient<Req, Rep>> c = nodes.get((start + i) % n);
      // not OPEN: busy, closed by the layer below, or unhealthy (an ejected node included)
      if (c.availability() != Availability.OPEN || tried(call, c.value())) {
        continue;
      }
      int rank = (c.endpoint().priority() == picked.endpoint().priority() ? 0 : 4)
          + (Objects.equals(c.endpoint().zone(), picked.endpoint().zone()) ? 0 : 2)
          + (c.health() == Health.HEALTHY ? 0 : 1);
      if (rank < bestRank) {
        best = c;
        bestRank = rank;
      }
    }
    return best;
  }

  private static <Req, Rep> boolean tried(Call<Req, Rep> call, EndpointClient<Req, Rep> ep) {
    for (Attempt<Req, Rep> a = call.last; a != null; a = a.previous) {
      if (a.ep == ep) {
        return true;
      }
    }
    return false;
  }

  @Override
  boolean leave(Attempt<Req, Rep> a) {
    if (a.awaitsLateAnswer()) {
      return true;
    }
    if (!a.reachedWire()) {
      a.node.cancel();
      return true;
    }
    feedReport(a, a.response);
    Classification c = a.classification();
    // A cancelled loser did not fail: its node hears how long it ran, from when it was sent.
    a.node.complete(a.sampleNanos(), c == null || c.isSuccess());
    return true;
  }

  /**
   * Feeds the server's load report that came with an answer to the node, when its balancer
   * reads reports (parsed only then): a header of the response (HTTP), or a frame of its own
   * before the answer (framed).
   */
  private void feedReport(Attempt<Req, Rep> a, Rep rep) {
    if (!a.wantsLoadReport()) { // the one question of a node's policy lb-netty asks (Attempt)
      return;
    }
    String report = rep == null ? null : protocol.loadReport(rep);
    byte[] framed = a.loadReport;
    if (report == null && framed != null) {
      report = new String(framed, StandardCharsets.UTF_8);
    }
    if (report != null) {
      a.node.reportLoad(EndpointLoadMetrics.parse(report));
    }
  }

  /**
   * The answer to an abandoned request came, or its wait ended (both null). Its load report, if
   * any, is fed like any other: the server's word on its load does not depend on the caller.
   */
  void lateAnswer(Attempt<Req, Rep> a, long latencyNanos, Rep rep, Throwable err) {
    if (rep != null || err != null) {
      feedReport(a, rep);
    }
    // A deadline's orphan fails (the caller gave up); a cancelled hedge loser is classified.
    boolean success = a.isLost() && (rep != null || err != null)
        && Feedback.classifyQuietly(classifier, a, rep, err).isSuccess();
    a.node.complete(latencyNanos, success);
  }
}
