package dev.ballast.core.composite;

/**
 * A count of health changes shared by composite balancers that share nodes (the label subsets'
 * children, each over zones): a node made by any of them bumps it when its health changes, and
 * each remakes its tables at its next pick once the count moved, reading one volatile field per
 * pick. Sharing one among unrelated balancers costs only rebuilds, never a wrong table.
 */
public final class HealthEpoch {

  private volatile int value;

  private HealthEpoch() {}

  /** Returns a new count at 0. */
  public static HealthEpoch create() {
    return new HealthEpoch();
  }

  /** Counts one health change (a node's listener; quick, takes no lock). */
  public void bump() {
    synchronized (this) {
      value++; // verdicts are rare; the lock keeps two from counting as one
    }
  }

  /** Returns the count. */
  public int value() {
    return value;
  }
}
