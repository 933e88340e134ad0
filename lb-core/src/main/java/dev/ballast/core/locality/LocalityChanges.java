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
    boolean spilled = was >= 0 && was < ZoneRoute.SCALE;
    boolean spills = is >= 0 && is < ZoneRoute.SCALE;
    if (spilled != spills) {
      String zone = after.levels[0].healthy.route == null ? null
          : localZone(after.levels[0].healthy);
      log.log(StateChangeLog.Kind.ZONE, spills ? Level.WARNING : Level.INFO, "zone " + zone
          + (spills ? " spills: " + is / 100.0 + "% of its calls stay local, the rest go to"
          + " other zones by their spare capacity" : " keeps all its calls again"));
    }
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

  private static String localZone(LocalityPlan.Group<?> group) {
    int local = group.route.local;
    return local >= 0 ? group.zones[local] : "(none healthy)";
  }
}
