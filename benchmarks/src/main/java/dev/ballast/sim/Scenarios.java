package dev.ballast.sim;

import java.util.List;
import java.util.Locale;

/**
 * The simulator's built-in scenarios, by name. Adding one is a case here and its name in {@link
 * #BUILT_IN} (and a line in {@code ./ballast simulate --help}).
 */
public final class Scenarios {

  /** The built-in scenarios' names. */
  public static final List<String> BUILT_IN =
      List.of("linkerd", "linkerd-deadline", "scale-out", "fail-fast");

  private Scenarios() {}

  /**
   * Returns a built-in scenario.
   *
   * <ul>
   *   <li>{@code linkerd} is Linkerd's "Beyond Round Robin" experiment: 11 backends answering in
   *       normal(167 ms, 5 ms), 1000 requests/s evenly spaced for 60 s, backend 0 answering in
   *       2 s from 15 s to 45 s, success measured at a 1 s timeout, no retries, seed 1. As in that
   *       experiment the timeout is a measuring threshold: the client waits for every answer,
   *       so the balancers see the slow backend's real 2 s latency.
   *   <li>{@code linkerd-deadline} is the same with the timeout enforced, as lb-netty does: the
   *       client gives up at 1 s, the request stays pending on the slow backend until its answer
   *       comes, and the balancer then hears its real 2 s latency (with {@code --late-answers
   *       drop}, the balancer sees a failure of 1 s at the deadline instead).
   *   <li>{@code scale-out}: 10 backends answering in normal(20 ms, 5 ms), 1000 requests/s for
   *       90 s, the timeout of 100 ms enforced; at 30 s ten more backends join, cold: 10 times
   *       slower at first, normal after 20 s. Results cover the 60 s after the scale-out; the
   *       30 s before it are the steady state. Add {@code --slow-start 60s} for slow start.
   *   <li>{@code fail-fast}: 10 backends answering in normal(20 ms, 5 ms), 1000 requests/s for
   *       60 s, timeout 1 s enforced; from 10 s on, backend 0 answers every request with an error
   *       in 1 ms. Results cover the 50 s of failures, with the failing backend's share.
   * </ul>
   *
   * @throws IllegalArgumentException naming the unknown scenario and the known ones
   */
  public static Scenario named(String name) {
    switch (name.trim().toLowerCase(Locale.ROOT)) {
      case "linkerd":
        return linkerd(1);
      case "linkerd-deadline":
        return linkerd(1).toBuilder().name("linkerd-deadline").enforceTimeout(true).build();
      case "scale-out":
        return Scenario.builder().name("scale-out")
            .backends(20, LatencyDistribution.normal(20_000_000L, 5_000_000L))
            .scaleOut(new ScaleOut(10, 30_000_000_000L, 10, 20_000_000_000L))
            .ratePerSecond(1000).durationNanos(90_000_000_000L).timeoutNanos(100_000_000L)
            .measureFromNanos(30_000_000_000L).build();
      case "fail-fast":
        return Scenario.builder().name("fail-fast")
            .backends(10, LatencyDistribution.normal(20_000_000L, 5_000_000L))
            .slowWindow(new SlowWindow(0, 10_000_000_000L, 60_000_000_000L,
                LatencyDistribution.constant(1_000_000L), true))
            .ratePerSecond(1000).durationNanos(60_000_000_000L).timeoutNanos(1_000_000_000L)
            .measureFromNanos(10_000_000_000L).build();
      default:
        throw new IllegalArgumentException("scenario: " + name + " (expected: one of " + BUILT_IN + ")");
    }
  }

  /** Returns Linkerd's experiment (see {@link #named}) with the given seed. */
  public static Scenario linkerd(long seed) {
    return Scenario.builder()
        .name("linkerd")
        .backends(11, LatencyDistribution.normal(167_000_000L, 5_000_000L))
        .slowWindow(new SlowWindow(0, 15_000_000_000L, 45_000_000_000L,
            LatencyDistribution.constant(2_000_000_000L)))
        .ratePerSecond(1000)
        .durationNanos(60_000_000_000L)
        .timeoutNanos(1_000_000_000L)
        .enforceTimeout(false)
        .seed(seed)
        .build();
  }

}
