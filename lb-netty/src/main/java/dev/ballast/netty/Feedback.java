package dev.ballast.netty;

import java.util.concurrent.TimeUnit;

/**
 * A module that hears each attempt's outcome for the caller, after the {@link
 * ResponseClassifier} has classified it: the balancer, outlier detection, the metrics and the
 * endpoint source, each with one job. An attempt cancelled because another one answered first
 * has no classification: only the balancer hears of it (when its late answer comes, or at once
 * if none can come).
 */
interface Feedback<Req, Rep> {

  /** The attempt's part for the caller ended; its classification is set (or null if lost). */
  void attemptEnded(Attempt<Req, Rep> a);

  /**
   * The balancer: every pick ends with {@code Node.complete} (latency and outcome) when the
   * request was written, else with {@code Node.cancel}, so that pending counts return to 0 and
   * load-aware balancers see real latency: from when the request got its connection, so that
   * the first call's sample does not count the connection's opening. A request awaiting its late answer completes its node
   * only when that answer comes ({@link #lateAnswer}).
   */
  final class Balancer<Req, Rep> implements Feedback<Req, Rep> {
    @Override
    public void attemptEnded(Attempt<Req, Rep> a) {
      if (a.awaitsLateAnswer()) {
        return;
      }
      if (!a.reachedWire()) {
        a.node.cancel();
        return;
      }
      Classification c = a.classification();
      // A cancelled loser did not fail: its node hears how long it ran, from when it was sent.
      a.node.complete(a.sampleNanos(), c == null || c.isSuccess());
    }

    /** A late answer came, or the wait for it ended: the node hears the request's true latency. */
    void lateAnswer(Attempt<Req, Rep> a, long latencyNanos, boolean success) {
      a.node.complete(latencyNanos, success);
    }
  }

  /** The endpoint source: a refused connection asks it to re-read early (DNS does). */
  final class Source<Req, Rep> implements Feedback<Req, Rep> {
    private final Endpoints<Req, Rep> endpoints;

    Source(Endpoints<Req, Rep> endpoints) {
      this.endpoints = endpoints;
    }

    @Override
    public void attemptEnded(Attempt<Req, Rep> a) {
      if (a.failure instanceof ConnectFailedException) {
        endpoints.connectFailed();
      }
    }
  }

  /** Outlier detection: each classified outcome that reached the endpoint. */
  final class Outliers<Req, Rep> implements Feedback<Req, Rep> {
    private final OutlierDetector detector;

    Outliers(OutlierDetector detector) {
      this.detector = detector;
    }

    @Override
    public void attemptEnded(Attempt<Req, Rep> a) {
      Classification c = a.classification();
      if (c != null && a.countsForEndpoint()) {
        // the clock read when the attempt ended, not a new one
        detector.record(a.ep.host, c.isSuccess(), a.start + a.latencyNanos());
      }
    }
  }

  /**
   * The endpoint's counters and metrics, and the slow-request log ({@code
   * dev.ballast.netty.slow}, WARNING, for successful attempts at or above the threshold).
   */
  final class Metrics<Req, Rep> implements Feedback<Req, Rep> {
    private static final System.Logger SLOW_LOG = System.getLogger("dev.ballast.netty.slow");

    private final String client;
    private final long slowNanos;

    Metrics(String client, long slowNanos) {
      this.client = client;
      this.slowNanos = slowNanos;
    }

    @Override
    public void attemptEnded(Attempt<Req, Rep> a) {
      Classification c = a.classification();
      if (c == null || !a.countsForEndpoint()) {
        return;
      }
      EndpointClient<Req, Rep> ep = a.ep;
      long latency = a.latencyNanos();
      if (!c.isSuccess()) {
        ep.failures.increment();
        ep.metrics.failure(latency, a.failure);
        return;
      }
      ep.successes.increment();
      ep.metrics.success(latency);
      if (latency >= slowNanos) {
        SLOW_LOG.log(System.Logger.Level.WARNING, () -> "slow request: endpoint " + ep.address
            + ", attempt " + a.number + ", latency " + TimeUnit.NANOSECONDS.toMillis(latency)
            + " ms (threshold " + TimeUnit.NANOSECONDS.toMillis(slowNanos) + " ms), client "
            + client);
      }
    }
  }
}
