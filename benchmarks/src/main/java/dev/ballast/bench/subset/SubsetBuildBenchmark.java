package dev.ballast.bench.subset;

import dev.ballast.core.Algorithm;
import dev.ballast.core.Balancer;
import dev.ballast.core.BalancerConfig;
import dev.ballast.core.Endpoint;
import dev.ballast.core.Node;
import dev.ballast.core.ChildBalancer;
import dev.ballast.core.subset.SubsetSelector;
import java.util.ArrayList;
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
 * Building every subset of 8000 hosts and 15 selectors: {@link SubsetSelector} (one pass into a
 * bitmap index, then intersections) against {@link NaiveSubsetBuilder} (MOSN's old scan of every
 * host per subset), in two situations:
 *
 * <ul>
 *   <li>{@code rebuild*}: a registry push to hosts that already have nodes (MOSN's case: every
 *       push rebuilt the subsets). Both sides match the pushed list to the existing nodes by
 *       address, then rebuild every subset; the selector is told to rebuild everything
 *       ({@code rebuildThreshold(0)}), so this is its full build, not its incremental update.
 *       Each push relabels 50 hosts, alternating between two lists.
 *   <li>{@code scratch*}: a new selector from a host list, nodes included (one per host on both
 *       sides). {@code scratchNodesOnly} makes just those nodes, the part both sides share, so
 *       that it can be subtracted from each to compare the subset building alone.
 * </ul>
 *
 * Run with {@code -prof gc} to compare bytes per build.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class SubsetBuildBenchmark {

  /** {@code mosn}: zone random, other keys constant; {@code harder}: all keys random. */
  @Param({"mosn", "harder"})
  public String dataSet;

  /** Hosts in the set. */
  @Param({"8000"})
  public int hosts;

  private List<Endpoint> endpoints;
  private List<Endpoint> pushA;
  private List<Endpoint> pushB;
  private boolean flip;
  private List<List<String>> selectors;
  private ChildBalancer<String> prototype;
  private SubsetSelector<String> fullRebuilder;
  private Balancer<String> naiveNodes;

  /** Makes the seeded data set and the two pushes. */
  @Setup
  public void setUp() {
    endpoints = SubsetData.hosts(dataSet, hosts, 42);
    pushA = endpoints;
    pushB = SubsetData.relabel(endpoints, dataSet, 50, 7);
    selectors = SubsetData.selectors();
    prototype = ChildBalancer.create(Algorithm.ROUND_ROBIN, BalancerConfig.defaults());
    fullRebuilder = SubsetSelector.<String>builder().selectors(selectors).rebuildThreshold(0)
        .build();
    fullRebuilder.update(pushA, Endpoint::address);
    naiveNodes = Algorithm.ROUND_ROBIN.create(BalancerConfig.defaults());
    naiveNodes.update(pushA, Endpoint::address);
    // sanity: both builders find the same subsets
    int indexed = scratchIndexed().stats().subsetCount();
    int naive = scratchNaive().size();
    if (indexed != naive) {
      throw new IllegalStateException("subsets: indexed " + indexed + ", naive " + naive);
    }
  }

  /** A push to existing nodes, every subset rebuilt from the bitmap index. */
  @Benchmark
  public SubsetSelector<String> rebuildIndexed() {
    flip = !flip;
    fullRebuilder.update(flip ? pushB : pushA, Endpoint::address);
    return fullRebuilder;
  }

  /** A push to existing nodes, every subset rebuilt by MOSN's old scan. */
  @Benchmark
  public Map<Map<String, String>, List<Node<String>>> rebuildNaive() {
    flip = !flip;
    naiveNodes.update(flip ? pushB : pushA, Endpoint::address);
    return NaiveSubsetBuilder.subsets(naiveNodes.nodes(), selectors);
  }

  /** A new selector: nodes, bitmap index and intersections; children made on first pick. */
  @Benchmark
  public SubsetSelector<String> scratchIndexed() {
    SubsetSelector<String> s = SubsetSelector.<String>builder().selectors(selectors).build();
    s.update(endpoints, Endpoint::address);
    return s;
  }

  /** Only the nodes both scratch builds make, one per host (round robin, as both use). */
  @Benchmark
  public List<Node<String>> scratchNodesOnly() {
    List<Node<String>> nodes = new ArrayList<>(endpoints.size());
    for (Endpoint e : endpoints) {
      nodes.add(prototype.newNode(e, e.address()));
    }
    return nodes;
  }

  /** New nodes, then every subset by MOSN's old scan. */
  @Benchmark
  public Map<Map<String, String>, List<Node<String>>> scratchNaive() {
    return NaiveSubsetBuilder.build(endpoints, selectors, prototype);
  }
}
