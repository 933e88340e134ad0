package dev.ballast.sim;

import java.util.Objects;
import org.HdrHistogram.Histogram;

/**
 * What one balancer achieved in one run: requests sent, how many were answered before the timeout,
 * and the latency histogram as the client saw it (a request that timed out counts at the timeout
 * when the client gives up there, else at its real latency). Latencies are recorded in microseconds
 * with 4 significant digits (0.05% at most between a value and the bucket that holds it) and
 * reported as the lowest value of their bucket, so a latency on a bucket's edge is reported exactly
 * (every whole millisecond up to 262 ms, and round figures such as 1 s or 2 s).
 */
public final class Result {

  /** The percentiles reported in tables and JSON, in that order. */
  public static final double[] PERCENTILES = {50, 90, 99, 99.9, 99.99};

  private final String balancer;
  private final long requests;
  private final long successes;
  private final long attempts;
  private final long[] picksPerBackend;
  private final Histogram histogram;
  private final long steadyRequests;
  private final long steadySuccesses;

  /**
   * Creates a result.
   *
   * @param balancer the balancer's name
   * @param requests requests sent
   * @param successes requests answered before their deadline
   * @param attempts attempts sent (more than requests with retries or backup requests)
   * @param picksPerBackend how many attempts each backend received
   * @param histogram client-side latency in microseconds, one value per request
   */
  public Result(String balancer, long requests, long successes, long attempts,
      long[] picksPerBackend, Histogram histogram) {
    this(balancer, requests, successes, attempts, picksPerBackend, histogram, 0, 0);
  }

  /**
   * Creates a result that also reports the steady state before its measuring window: the
   * requests sent before it and how many of them succeeded.
   */
  public Result(String balancer, long requests, long successes, long attempts,
      long[] picksPerBackend, Histogram histogram, long steadyRequests, long steadySuccesses) {
    this.steadyRequests = steadyRequests;
    this.steadySuccesses = steadySuccesses;
    this.balancer = Objects.requireNonNull(balancer, "balancer");
    this.requests = requests;
    this.successes = successes;
    this.attempts = attempts;
    this.picksPerBackend = picksPerBackend.clone();
    this.histogram = Objects.requireNonNull(histogram, "histogram");
  }

  /** Returns a histogram fit for {@link #Result}'s latencies: microseconds, 4 significant digits. */
  public static Histogram newHistogram() {
    return new Histogram(4);
  }

  /** Returns the balancer's name. */
  public String balancer() {
    return balancer;
  }

  /** Returns the requests sent. */
  public long requests() {
    return requests;
  }

  /** Returns the requests answered before their deadline. */
  public long successes() {
    return successes;
  }

  /** Returns the attempts sent, including retries and backup requests. */
  public long attempts() {
    return attempts;
  }

  /** Returns how many attempts each backend received (a copy). */
  public long[] picksPerBackend() {
    return picksPerBackend.clone();
  }

  /** Returns successes / requests, from 0 to 1 (1 when there were no requests). */
  public double successRate() {
    return requests == 0 ? 1 : (double) successes / requests;
  }

  /** Returns the requests sent before the measuring window (0 if it starts at once). */
  public long steadyRequests() {
    return steadyRequests;
  }

  /** Returns the success rate before the measuring window, from 0 to 1 (1 without requests). */
  public double steadySuccessRate() {
    return steadyRequests == 0 ? 1 : (double) steadySuccesses / steadyRequests;
  }

  /** Returns backend {@code i}'s share of the attempts, from 0 to 1. */
  public double share(int i) {
    return attempts == 0 ? 0 : (double) picksPerBackend[i] / attempts;
  }

  /** Returns the latency at a percentile (0-100) in milliseconds. */
  public double percentileMillis(double percentile) {
    return histogram.lowestEquivalentValue(histogram.getValueAtPercentile(percentile)) / 1000.0;
  }

  /** Returns the largest latency in milliseconds. */
  public double maxMillis() {
    return histogram.lowestEquivalentValue(histogram.getMaxValue()) / 1000.0;
  }

  /** Returns the latency histogram in microseconds (not a copy: do not change it). */
  public Histogram histogram() {
    return histogram;
  }
}
