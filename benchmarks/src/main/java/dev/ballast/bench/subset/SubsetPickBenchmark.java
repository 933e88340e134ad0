package dev.ballast.bench.subset;

import dev.ballast.core.Algorithm;
import dev.ballast.core.Balancer;
import dev.ballast.core.BalancerConfig;
import dev.ballast.core.Endpoint;
import dev.ballast.core.Node;
import dev.ballast.core.subset.RequestLabels;
import dev.ballast.core.subset.SubsetSelector;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * Request labels to subset to child pick (and cancel, so pending counts stay flat), on the
 * harder data set (8000 hosts, 15 selectors, 255 subsets), against the child balancer alone over
 * the same members: the difference is what the subset lookup costs. Run with {@code -prof gc}:
 * a pick with reused {@link RequestLabels} allocates nothing.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class SubsetPickBenchmark {

  /** The child balancers' algorithm. */
  @Param({"round_robin", "p2c_peak_ewma"})
  public String algorithm;

  private SubsetSelector<String> selector;
  private SubsetSelector<String> lenient;
  private RequestLabels oneKey;
  private RequestLabels fourKeys;
  private RequestLabels redundant;
  private Map<String, String> asMap;
  private Balancer<String> plain;

  /** Builds the selectors and warms the subsets used. */
  @Setup
  public void setUp() {
    List<Endpoint> hosts = SubsetData.hosts("harder", 8000, 42);
    Algorithm a = Algorithm.fromName(algorithm);
    selector = SubsetSelector.<String>builder().selectors(SubsetData.selectors()).algorithm(a)
        .build();
    selector.update(hosts, Endpoint::address);
    lenient = SubsetSelector.<String>builder().selectors(SubsetData.selectors()).algorithm(a)
        .allowRedundantKeys(true).build();
    lenient.update(hosts, Endpoint::address);
    oneKey = RequestLabels.of("zone", "zone-1");
    fourKeys = RequestLabels.of("zone", "zone-1", "physics", "physics-2", "mosn_aig", "aig-0",
        "mosn_version", "1.0.1");
    redundant = RequestLabels.of("zone", "zone-1", "mosn_version", "1.0.1", "trace", "on");
    asMap = fourKeys.asMap();
    // the same members as the four-key subset, balanced directly
    plain = a.create(BalancerConfig.defaults());
    List<Endpoint> members = hosts.stream().filter(e -> fourKeys.matches(e.labels())).toList();
    plain.update(members, Endpoint::address);
    if (selector.members(fourKeys).size() != members.size() || members.isEmpty()) {
      throw new IllegalStateException("subset sizes differ");
    }
  }

  /** Baseline: the child balancer over the four-key subset's members, no lookup. */
  @Benchmark
  public Node<String> childOnly() {
    Node<String> n = plain.pick();
    n.cancel();
    return n;
  }

  /** Lookup of a one-key subset ({@code zone}, 2667 members) and pick. */
  @Benchmark
  public Node<String> subsetOneKey() {
    Node<String> n = selector.pick(oneKey);
    n.cancel();
    return n;
  }

  /** Lookup of a four-key subset (about 100 members) and pick. */
  @Benchmark
  public Node<String> subsetFourKeys() {
    Node<String> n = selector.pick(fourKeys);
    n.cancel();
    return n;
  }

  /** The convenience overload: a map converted on every call (allocates). */
  @Benchmark
  public Node<String> subsetFromMap() {
    Node<String> n = selector.pick(asMap);
    n.cancel();
    return n;
  }

  /** Redundant keys allowed: labels that are no selector's, resolved once and cached. */
  @Benchmark
  public Node<String> redundantKeysCached() {
    Node<String> n = lenient.pick(redundant);
    n.cancel();
    return n;
  }
}
