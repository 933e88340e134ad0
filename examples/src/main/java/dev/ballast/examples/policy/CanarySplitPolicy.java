package dev.ballast.examples.policy;

import dev.ballast.core.BalancerConfig;
import dev.ballast.core.ChildBalancer;
import dev.ballast.core.Node;
import dev.ballast.core.config.OptionSet;
import dev.ballast.core.config.ValueType;
import dev.ballast.core.config.Values;
import dev.ballast.core.engine.Distributor;
import dev.ballast.core.engine.DistributorBalancer;
import dev.ballast.core.policy.BalancingPolicy;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A team's own balancing policy, written outside Ballast and registered as a plugin ({@code
 * META-INF/services/dev.ballast.core.policy.BalancingPolicy}): {@code canary_split} sends {@code
 * percent} of calls to the endpoints whose label {@code label} is {@code true} (e.g. {@code
 * 10.0.0.9:8080;canary=true}) and the rest to the others, round robin within each group. The
 * split is exact, not sampled: of any first {@code n} calls, {@code floor(n * percent / 100)} go
 * to the canaries (percent read to a hundredth). With no canary, every call goes to the others;
 * with only canaries, to them.
 *
 * <p>Options: {@code label} (default {@code canary}) and {@code percent} (0 to 100, default 5).
 * Chosen by name on every front end: lb-netty's {@code balancer("canary_split", Map.of("percent",
 * 10))}, Spring's {@code balancer: canary-split} with {@code policy.percent: 10}, and a gRPC
 * service config {@code {"canary_split": {"percent": 10}}} through {@link CanarySplitProvider}.
 */
public final class CanarySplitPolicy implements BalancingPolicy<Values> {

  /** The policy's name. */
  public static final String NAME = "canary_split";

  private static final OptionSet<Values, Values> OPTIONS = OptionSet.ofValues("canary_split",
      CanarySplitPolicy::check, List.of(
          Values.option("label", ValueType.STRING, "canary", "canary", ""),
          Values.option("percent", ValueType.DOUBLE, 5.0, "10", "101")));

  private static void check(Values v) {
    double percent = v.get("percent", 5.0);
    if (!(percent >= 0 && percent <= 100)) {
      throw new IllegalArgumentException("percent: " + ValueType.show(percent)
          + " (expected: 0 to 100)");
    }
    if (v.get("label", "canary").isBlank()) {
      throw new IllegalArgumentException("label: \"\" (expected: a label key such as canary)");
    }
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public OptionSet<Values, Values> options() {
    return OPTIONS;
  }

  @Override
  public <T> ChildBalancer<T> newBalancer(BalancerConfig common, Values config) {
    String label = config.get("label", "canary");
    long basisPoints = Math.round(config.get("percent", 5.0) * 100);
    return new DistributorBalancer<>(NAME, common, new Distributor.Factory() {
      @Override
      public <U> Distributor<U> over(List<Node<U>> nodes, int[] weights, BalancerConfig c) {
        return new Split<>(nodes, label, basisPoints);
      }
    });
  }

  /** The split over one set of nodes; allocation-free and lock-free per pick. */
  private static final class Split<T> implements Distributor<T> {
    private final Node<T>[] canaries;
    private final Node<T>[] others;
    private final long basisPoints;
    private final AtomicLong calls = new AtomicLong();
    private final AtomicLong canaryTurn = new AtomicLong();
    private final AtomicLong otherTurn = new AtomicLong();

    @SuppressWarnings("unchecked")
    Split(List<Node<T>> nodes, String label, long basisPoints) {
      List<Node<T>> c = new ArrayList<>();
      List<Node<T>> o = new ArrayList<>();
      for (Node<T> n : nodes) {
        ("true".equals(n.endpoint().labels().get(label)) ? c : o).add(n);
      }
      this.canaries = c.toArray(new Node[0]);
      this.others = o.toArray(new Node[0]);
      this.basisPoints = basisPoints;
    }

    @Override
    public Node<T> next() {
      boolean canary;
      if (canaries.length == 0 || others.length == 0) {
        canary = others.length == 0;
      } else {
        // call i goes to a canary when floor((i + 1) p) passes floor(i p): exactly p of calls
        long i = calls.getAndIncrement();
        canary = (i + 1) * basisPoints / 10_000 > i * basisPoints / 10_000;
      }
      Node<T>[] group = canary ? canaries : others;
      long turn = (canary ? canaryTurn : otherTurn).getAndIncrement();
      return group[(int) ((turn & Long.MAX_VALUE) % group.length)];
    }
  }
}
