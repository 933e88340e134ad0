package dev.ballast.core.locality;

import java.util.random.RandomGenerator;

/**
 * Draws decided by a call's key (SplitMix64, Steele, Lea and Flood, "Fast splittable
 * pseudorandom number generators", OOPSLA 2014, seeded with the key's hash), so that a keyed pick
 * chooses the same level and locality every time while the tables stay, and the key keeps one
 * node; the keys of a locality's share of the key space go to it. One per thread, reused: a
 * keyed pick allocates nothing.
 */
final class KeyedDraws implements RandomGenerator {

  private static final ThreadLocal<KeyedDraws> PER_THREAD =
      ThreadLocal.withInitial(KeyedDraws::new);

  private long state;

  private KeyedDraws() {}

  /** Returns this thread's draws, seeded with a key's hash. */
  static KeyedDraws of(long hash) {
    KeyedDraws d = PER_THREAD.get();
    d.state = hash;
    return d;
  }

  @Override
  public long nextLong() {
    long z = state += 0x9E3779B97F4A7C15L;
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }
}
