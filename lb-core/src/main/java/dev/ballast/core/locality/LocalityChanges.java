package dev.ballast.core.locality;

import dev.ballast.core.log.StateChangeLog;
import java.lang.System.Logger.Level;

/**
 * The changes between two plans that an operator wants to hear of: a priority level entering or
 * leaving panic, and the caller's zone starting or stopping to spill calls to other zones.
 */
final class LocalityChanges {

  private LocalityChanges() {}

  /** Logs what changed from {@code before} to {@code after}; nothing if {@code log} is null. */
  static void log(StateChangeLog log, LocalityPlan<?> before, LocalityPlan<?> after) {
    if (log == null || after.nodes.length == 0) {
      return;
    }
    for (int i = 0; i < after.levels.length; i++) {
      int priority = after.priorities[i];
      boolean was = panics(before, priority);
      boolean is = after.loads.panic[i];
      if (was != is) {
        log.log(StateChangeLog.Kind.PANIC, is ? Level.WARNING : Level.INFO, "priority "
            + priority + (is ? " in panic: too few healthy endpoints, its calls go to all of"
            + " them whatever their health" : " out of panic"));
      }
    }
    int was = localShare(before);
    int is = localShare(after);
    if (before.nodes.length == 0 && state(is) == OFF && after.zoneOff != null) {
      // asked for by a local zone, off from a set's start (a configuration that does nothing,
      // or a set too small for it): said at once, with why
      log.log(StateChangeLog.Kind.ZONE, Level.WARNING, "zone " + after.localZone
          + ": zone-aware routing off (" + after.zoneOff + "), its calls go to every zone by"
          + " weight");
      return;
    }
    // zone routing off, keeping every call local, or spilling: a change of these is logged, but
    // the first plan's routing (on and keeping, or off) is the configuration, not a change
    if (state(was) == state(is) || before.nodes.length == 0 && state(is) != SPILLS) {
      return;
    }
    if (state(is) == OFF) {
      log.log(StateChangeLog.Kind.ZONE, Level.INFO, "zone " + after.localZone
          + ": zone-aware routing off (" + after.zoneOff + "), its calls go to every zone by"
          + " weight");
    } else if (state(is) == SPILLS) {
      LocalityPlan.Group<?> g = after.levels[0].healthy;
      log.log(StateChangeLog.Kind.ZONE, Level.WARNING, "zone " + after.localZone + " spills: "
          + is / 100.0 + "% of its calls stay local" + (g.route.local < 0
          ? " (it has no endpoint at priority 0)" : g.children[g.route.local] == null
          ? " (none of its endpoints is healthy)" : "") + ", the rest go to other zones by their"
          + " spare capacity");
    } else {
      log.log(StateChangeLog.Kind.ZONE, Level.INFO, "zone " + after.localZone
          + " keeps all its calls " + (state(was) == OFF ? "(zone-aware routing on again)"
          : "again"));
    }
  }

  private static final int OFF = 0;
  private static final int KEEPS = 1;
  private static final int SPILLS = 2;

  private static int state(int localShare) {
    return localShare < 0 ? OFF : localShare < ZoneRoute.SCALE ? SPILLS : KEEPS;
  }

  private static boolean panics(LocalityPlan<?> plan, int priority) {
    for (int i = 0; i < plan.priorities.length; i++) {
      if (plan.priorities[i] == priority) {
        return plan.loads.panic[i];
      }
    }
    return false;
  }

  // ten-thousandths of the first level's healthy picks that stay local, -1 without zone routing
  private static int localShare(LocalityPlan<?> plan) {
    if (plan.levels.length == 0 || plan.levels[0].healthy.route == null) {
      return -1;
    }
    return plan.levels[0].healthy.route.localShare;
  }
}
