package dev.ballast.bench.subset;

import dev.ballast.core.Endpoint;
import dev.ballast.core.Node;
import dev.ballast.core.subset.RequestLabels;
import dev.ballast.core.subset.SubsetSelector;
import dev.ballast.core.subset.SubsetStats;
import java.util.ArrayList;
import java.util.List;
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
 * A registry push that changes the labels of 50 of 8000 hosts (15 selectors): the selector's
 * incremental update against its full rebuild ({@code rebuildThreshold(0)}) of the same push,
 * and the same change given as a delta of the 50 endpoints ({@link SubsetSelector#apply}).
 * Each operation applies the other of two lists, so every push really changes 50 hosts. Both
 * selectors keep their nodes; every subset has been picked once before, so child balancers exist
 * (the incremental update keeps the untouched ones; the full rebuild drops them all, and pays
 * for them again on the next picks, which {@code delta}, {@code incremental} and {@code
 * fullRebuild} do not count).
 *
 * <p>{@code deltaThenPicks} and {@code fullRebuildThenPicks} count them: each update is followed
 * by one pick from every subset it changed (the delta) or from every subset (the full rebuild),
 * which makes the child balancers of the subsets whose members changed again (the full rebuild
 * keeps the subsets, and child balancers, of member sets it finds unchanged).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class SubsetUpdateBenchmark {

  /** {@code mosn}: zone random, other keys constant; {@code harder}: all keys random. */
  @Param({"mosn", "harder"})
  public String dataSet;

  /** Hosts relabelled per push. */
  @Param({"50"})
  public int changed;

  private List<Endpoint> pushA;
  private List<Endpoint> pushB;
  private List<Endpoint> deltaToA;
  private List<Endpoint> deltaToB;
  // which list the next push applies; each benchmark method runs with its own state instance
  private boolean flip;
  private SubsetSelector<String> incremental;
  private SubsetSelector<String> full;
  private SubsetSelector<String> delta;
  private SubsetSelector<String> deltaPicked;
  private SubsetSelector<String> fullPicked;
  // the labels of the subsets whose members differ between the two pushes, and of every subset
  private RequestLabels[] changedLabels;
  private RequestLabels[] allLabels;

  /** Makes the two pushes and the two selectors. */
  @Setup
  public void setUp() {
    pushA = SubsetData.hosts(dataSet, 8000, 42);
    pushB = SubsetData.relabel(pushA, dataSet, changed, 7);
    incremental = SubsetSelector.<String>builder().selectors(SubsetData.selectors()).build();
    full = SubsetSelector.<String>builder().selectors(SubsetData.selectors()).rebuildThreshold(0)
        .build();
    delta = SubsetSelector.<String>builder().selectors(SubsetData.selectors()).build();
    deltaPicked = SubsetSelector.<String>builder().selectors(SubsetData.selectors()).build();
    fullPicked = SubsetSelector.<String>builder().selectors(SubsetData.selectors())
        .rebuildThreshold(0).build();
    deltaToA = new ArrayList<>();
    deltaToB = new ArrayList<>();
    for (int i = 0; i < pushA.size(); i++) {
      if (pushA.get(i) != pushB.get(i)) {
        deltaToA.add(pushA.get(i));
        deltaToB.add(pushB.get(i));
      }
    }
    if (deltaToB.size() != changed) {
      throw new IllegalStateException("delta of " + deltaToB.size() + " (expected: " + changed + ")");
    }
    List<RequestLabels> before = new ArrayList<>();
    List<List<String>> membersBefore = new ArrayList<>();
    for (SubsetSelector<String> s : List.of(incremental, full, delta, deltaPicked, fullPicked)) {
      s.update(pushA, Endpoint::address);
      for (SubsetStats.SubsetInfo info : s.stats().subsets()) {
        s.pick(info.labels()).cancel();
      }
    }
    for (SubsetStats.SubsetInfo info : full.stats().subsets()) {
      before.add(info.labels());
      membersBefore.add(addresses(full.members(info.labels())));
    }
    // sanity: the same push gives the same subsets both ways
    incremental.update(pushB, Endpoint::address);
    full.update(pushB, Endpoint::address);
    delta.apply(deltaToB, List.of(), Endpoint::address);
    for (SubsetStats.SubsetInfo info : full.stats().subsets()) {
      RequestLabels l = info.labels();
      if (!addresses(incremental.members(l)).equals(addresses(full.members(l)))
          || !addresses(delta.members(l)).equals(addresses(full.members(l)))) {
        throw new IllegalStateException("subset " + l + " differs");
      }
    }
    List<RequestLabels> changedList = new ArrayList<>();
    for (int i = 0; i < before.size(); i++) {
      if (!addresses(full.members(before.get(i))).equals(membersBefore.get(i))) {
        changedList.add(before.get(i));
      }
    }
    changedLabels = changedList.toArray(new RequestLabels[0]);
    allLabels = before.toArray(new RequestLabels[0]);
    if (full.stats().subsetCount() != allLabels.length || changedLabels.length == 0) {
      throw new IllegalStateException("subsets: " + allLabels.length + ", changed "
          + changedLabels.length);
    }
    if (incremental.stats().incrementalUpdates() == 0 || full.stats().incrementalUpdates() != 0
        || delta.stats().incrementalUpdates() == 0 || delta.stats().subsetCount()
        != full.stats().subsetCount()) {
      throw new IllegalStateException("wrong update paths: " + incremental.stats() + full.stats());
    }
  }

  private static List<String> addresses(List<Node<String>> nodes) {
    return nodes.stream().map(Node::address).toList();
  }

  /** Only the subsets the 50 changed hosts leave or join are rebuilt. */
  @Benchmark
  public SubsetSelector<String> incremental() {
    flip = !flip;
    incremental.update(flip ? pushA : pushB, Endpoint::address);
    return incremental;
  }

  /** Every subset is made again from the bitset index. */
  @Benchmark
  public SubsetSelector<String> fullRebuild() {
    flip = !flip;
    full.update(flip ? pushA : pushB, Endpoint::address);
    return full;
  }

  /**
   * The same change given as a delta ({@link SubsetSelector#apply}): only the 50 changed
   * endpoints, no full list to match, and only the subsets they leave or join are made again.
   */
  @Benchmark
  public SubsetSelector<String> delta() {
    flip = !flip;
    delta.apply(flip ? deltaToA : deltaToB, List.of(), Endpoint::address);
    return delta;
  }

  /** The delta, then one pick from each subset whose members it changed: its child made again. */
  @Benchmark
  public SubsetSelector<String> deltaThenPicks() {
    flip = !flip;
    deltaPicked.apply(flip ? deltaToA : deltaToB, List.of(), Endpoint::address);
    pickEach(deltaPicked, changedLabels);
    return deltaPicked;
  }

  /**
   * The full rebuild, then one pick from every subset: the child balancers of the subsets whose
   * members changed made again.
   */
  @Benchmark
  public SubsetSelector<String> fullRebuildThenPicks() {
    flip = !flip;
    fullPicked.update(flip ? pushA : pushB, Endpoint::address);
    pickEach(fullPicked, allLabels);
    return fullPicked;
  }

  private static void pickEach(SubsetSelector<String> s, RequestLabels[] labels) {
    for (RequestLabels l : labels) {
      s.pick(l).cancel();
    }
  }
}
