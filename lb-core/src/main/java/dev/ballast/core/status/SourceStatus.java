package dev.ballast.core.status;

import java.time.Instant;
import java.util.Objects;

/**
 * An endpoint source as its feed last saw it.
 *
 * @param name the source's name (its registry and path, or {@code static})
 * @param up whether the source is connected and current
 * @param lastUpdate when its last change was applied to the balancer, or null before the first
 * @param entries how many endpoints the balancer holds from it
 * @param updatesApplied how many changes were applied
 * @param entriesRejected how many entries were skipped (malformed, duplicate, refused)
 * @param stalenessSeconds seconds since it was last known current: 0 while up
 */
public record SourceStatus(String name, boolean up, Instant lastUpdate, int entries,
    long updatesApplied, long entriesRejected, double stalenessSeconds) {

  /** Checks the name. */
  public SourceStatus {
    Objects.requireNonNull(name, "name");
  }
}
