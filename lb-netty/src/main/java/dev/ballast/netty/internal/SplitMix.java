package dev.ballast.netty.internal;

import java.util.concurrent.atomic.AtomicLong;
import java.util.random.RandomGenerator;

/**
 * A seeded random source that many threads may share without a lock: SplitMix64 (Steele, Lea
 * and Flood, "Fast splittable pseudorandom number generators", OOPSLA 2014; the generator of
 * {@link java.util.SplittableRandom}) over an atomic counter, so that one thread's sequence is
 * the same for the same seed, and threads never see a torn state.
 */
public final class SplitMix implements RandomGenerator {

  private static final long GOLDEN_GAMMA = 0x9e3779b97f4a7c15L;

  private final AtomicLong state;

  /** Creates the source. */
  public SplitMix(long seed) {
    this.state = new AtomicLong(seed);
  }

  @Override
  public long nextLong() {
    long z = state.addAndGet(GOLDEN_GAMMA);
    z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
    z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
    return z ^ (z >>> 31);
  }
}
