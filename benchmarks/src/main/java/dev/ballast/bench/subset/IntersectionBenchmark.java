package dev.ballast.bench.subset;

import java.util.BitSet;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.roaringbitmap.RoaringBitmap;

/**
 * The AND of two {@code key=value} sets of endpoint slots, as the label subsets compute it (a
 * changed subset's members, a label set resolved with redundant keys): {@link BitSet}, which
 * lb-core uses, against RoaringBitmap. Each operation makes a new set, as the subsets do, and
 * counts its members. {@code dense}: two sets of a third of the slots each (the harder data set's
 * {@code zone} and {@code version}); {@code sparse}: two sets of 100 slots each.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class IntersectionBenchmark {

  /** Slots in use (endpoints). */
  @Param({"8000", "100000"})
  public int slots;

  /** How the members are spread. */
  @Param({"dense", "sparse"})
  public String shape;

  private BitSet bitsA;
  private BitSet bitsB;
  private RoaringBitmap roaringA;
  private RoaringBitmap roaringB;

  /** Makes the two sets, seeded. */
  @Setup
  public void setUp() {
    SplittableRandom r = new SplittableRandom(42);
    bitsA = new BitSet(slots);
    bitsB = new BitSet(slots);
    roaringA = new RoaringBitmap();
    roaringB = new RoaringBitmap();
    boolean dense = shape.equals("dense");
    for (int i = 0; i < (dense ? slots : 100); i++) {
      int slot = dense ? i : r.nextInt(slots);
      if (!dense || r.nextInt(3) == 0) {
        bitsA.set(slot);
        roaringA.add(slot);
      }
      slot = dense ? i : r.nextInt(slots);
      if (!dense || r.nextInt(3) == 0) {
        bitsB.set(slot);
        roaringB.add(slot);
      }
    }
    roaringA.runOptimize();
    roaringB.runOptimize();
    if (bitsA.cardinality() != roaringA.getCardinality()) {
      throw new IllegalStateException("the two forms differ");
    }
  }

  /** A new BitSet: a copy of one set ANDed with the other, as lb-core does it. */
  @Benchmark
  public int bitSet() {
    BitSet r = new BitSet(slots);
    r.or(bitsA);
    r.and(bitsB);
    return r.cardinality();
  }

  /** RoaringBitmap's static {@code and}, which makes a new bitmap. */
  @Benchmark
  public int roaring() {
    return RoaringBitmap.and(roaringA, roaringB).getCardinality();
  }
}
