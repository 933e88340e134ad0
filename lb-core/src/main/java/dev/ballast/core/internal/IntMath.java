package dev.ballast.core.internal;

/** Integer arithmetic the balancers share. */
public final class IntMath {

  private IntMath() {}

  /** Euclid's greatest common divisor of non-negative values; {@code gcd(0, b) = b}. */
  public static int gcd(int a, int b) {
    while (b != 0) {
      int t = a % b;
      a = b;
      b = t;
    }
    return a;
  }
}
