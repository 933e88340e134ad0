package dev.ballast.bench.subset;

import dev.ballast.core.Algorithm;
import dev.ballast.core.Balancer;
import dev.ballast.core.BalancerConfig;
import dev.ballast.core.Endpoint;
import dev.ballast.core.Node;
import dev.ballast.core.ChildBalancer;
import java.util.ArrayList;
import java.util.BitSet;
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
 * Making a subset's child balancer from its member slots (a bitset over the 8000 hosts of the
 * harder data set), the cost every subset pays on its first pick after an update changed it:
 * {@code setNodes}, the public path the selector used before (a list of the members, each
 * node's algorithm checked, every address hashed, the weights checked), against {@code
 * validatedNodes}, the path it uses now (nodes and weights read by slot, given to the child as
 * they are with {@link ChildBalancer#setMembers}, as {@code Subset.makeChild} does). Divide by {@code members} for the cost per
 * membership.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class SubsetChildBenchmark {

  /** The subset: {@code zone} (about 2667 members) or all four keys (about 100). */
  @Param({"zone", "fourKeys"})
  public String subset;

  /** The child balancers' algorithm. */
  @Param({"round_robin", "vnswrr"})
  public String algorithm;

  private Algorithm child;
  private BitSet members;
  private Node<String>[] bySlot;
  private int[] weights;

  /** Makes the nodes by slot and the subset's member slots. */
  @Setup
  @SuppressWarnings("unchecked")
  public void setUp() {
    List<Endpoint> hosts = SubsetData.hosts("harder", 8000, 42);
    child = Algorithm.fromName(algorithm);
    ChildBalancer<String> prototype = ChildBalancer.create(child, BalancerConfig.defaults());
    bySlot = new Node[hosts.size()];
    weights = new int[hosts.size()];
    members = new BitSet(hosts.size());
    for (int slot = 0; slot < hosts.size(); slot++) {
      Endpoint e = hosts.get(slot);
      bySlot[slot] = prototype.newNode(e, e.address());
      weights[slot] = e.weight();
      boolean in = e.label("zone").equals("zone-1") && (subset.equals("zone")
          || e.label("physics").equals("physics-2") && e.label("mosn_aig").equals("aig-0")
          && e.label("mosn_version").equals("1.0.1"));
      members.set(slot, in);
    }
  }

  /** Before: the members as a list, then {@link ChildBalancer#setNodes}. */
  @Benchmark
  public Balancer<String> setNodes() {
    List<Node<String>> nodes = new ArrayList<>(members.cardinality());
    for (int s = members.nextSetBit(0); s >= 0; s = members.nextSetBit(s + 1)) {
      nodes.add(bySlot[s]);
    }
    ChildBalancer<String> b = ChildBalancer.create(child, BalancerConfig.defaults());
    b.setNodes(nodes);
    return b;
  }

  /** Now: nodes and weights read by slot and given as they are. */
  @Benchmark
  @SuppressWarnings("unchecked")
  public Balancer<String> validatedNodes() {
    int size = members.cardinality();
    Node<String>[] nodes = new Node[size];
    int[] w = new int[size];
    long[] words = members.toLongArray();
    for (int i = 0, n = 0; i < words.length; i++) {
      for (long x = words[i]; x != 0; x &= x - 1, n++) {
        nodes[n] = bySlot[(i << 6) + Long.numberOfTrailingZeros(x)];
        w[n] = weights[(i << 6) + Long.numberOfTrailingZeros(x)];
      }
    }
    ChildBalancer<String> b = ChildBalancer.create(child, BalancerConfig.defaults());
    b.setMembers(nodes, w);
    return b;
  }
}
