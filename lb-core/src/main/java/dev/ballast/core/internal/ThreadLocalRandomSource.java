package dev.ballast.core.internal;

import java.util.concurrent.ThreadLocalRandom;
import java.util.random.RandomGenerator;

/** A {@link RandomGenerator} that asks the calling thread's {@link ThreadLocalRandom}. */
public final class ThreadLocalRandomSource implements RandomGenerator {

  /** The only instance. */
  public static final ThreadLocalRandomSource INSTANCE = new ThreadLocalRandomSource();

  private ThreadLocalRandomSource() {}

  @Override
  public long nextLong() {
    return ThreadLocalRandom.current().nextLong();
  }

  @Override
  public int nextInt(int bound) {
    return ThreadLocalRandom.current().nextInt(bound);
  }

  @Override
  public double nextDouble() {
    return ThreadLocalRandom.current().nextDouble();
  }
}
