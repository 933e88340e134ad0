package dev.ballast.core.subset.internal;

import dev.ballast.core.Balancer;
import dev.ballast.core.Node;
import java.util.HashMap;
import java.util.function.Supplier;

/**
 * Gives equal member sets one shared {@link Subset} (so one child balancer), found by content
 * ({@link SlotSet#equals}: identity, then size and content hash, then the members; the hash is
 * kept by each set, so a lookup reads no members unless two sets collide). Kept by the
 * updater across incremental updates, counting how many places (selector table entries, the
 * all-endpoints and default subsets) use each subset, so that an update registers only the
 * subsets it makes and forgets only those it drops; a full build starts a new one. Not
 * thread-safe.
 *
 * @param <T> the thing being balanced
 */
final class Canon<T> {
  private final HashMap<SlotSet, Subset<T>> byContent = new HashMap<>();
  private final Supplier<? extends Balancer<T>> factory;

  Canon(Supplier<? extends Balancer<T>> factory) {
    this.factory = factory;
  }

  /** Returns the subset with these members, made (over {@code bySlot}) if there is none. */
  Subset<T> of(SlotSet members, Node<T>[] bySlot) {
    Subset<T> s = byContent.get(members);
    if (s == null) {
      s = new Subset<>(members, bySlot, factory);
      byContent.put(members, s);
    }
    return s;
  }

  /** Counts one more use of the subset ({@code null} is ignored). */
  void acquire(Subset<T> s) {
    if (s != null) {
      s.refs++;
    }
  }

  /** Counts one use less; a subset no longer used is forgotten. */
  void release(Subset<T> s) {
    if (s != null && --s.refs == 0) {
      retire(s);
    }
  }

  /**
   * Forgets the subset, so that its members get a new subset (with a new child balancer) from
   * now on: used when a member's weight changes, which the old child balancer would not see.
   */
  void retire(Subset<T> s) {
    if (s == null) {
      return;
    }
    byContent.remove(s.members(), s);
  }
}
