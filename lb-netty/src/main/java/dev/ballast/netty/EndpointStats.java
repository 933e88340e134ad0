package dev.ballast.netty;

/**
 * A snapshot of one endpoint of a client, for tests, dashboards and the demo.
 *
 * @param address the endpoint's {@code host:port}
 * @param weight its weight
 * @param pending requests picked by the balancer and not yet ended
 * @param inFlight connection-pool permits taken and not yet released
 * @param connections open connections
 * @param idleConnections open connections with no request
 * @param pendingAcquires acquires waiting for a connection
 * @param ejected whether outlier detection has ejected it
 * @param successes attempts on it that the response classifier called a success
 * @param failures attempts on it that failed: the classifier called the outcome a failure (an
 *     HTTP 503 included), or the connection failed; a deadline counts when it passes, even when
 *     the request's late answer is still awaited
 * @param rttEstimateNanos the balancer's peak-EWMA latency estimate in nanoseconds, decayed to
 *     now, or -1 when the algorithm does not track latency
 * @param health its health: the worse of its registry's {@code health} label and the verdict of
 *     the active checks ({@link dev.ballast.netty.health.HealthCheck}); an unhealthy endpoint
 *     takes no calls
 */
public record EndpointStats(String address, int weight, int pending, int inFlight,
    int connections, int idleConnections, int pendingAcquires, boolean ejected, long successes,
    long failures, double rttEstimateNanos, dev.ballast.core.Health health) {}
