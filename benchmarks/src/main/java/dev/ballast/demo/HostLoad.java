package dev.ballast.demo;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * The host's load average, printed by the demo and the comparison at their start and end: on a
 * host whose load is above its core count the runs wait for a core, and their figures then say
 * more about the host than about the clients.
 */
public final class HostLoad {

  private HostLoad() {}

  /** Returns the 1-, 5- and 15-minute load averages ({@code /proc/loadavg}, else the 1-minute one thrice). */
  public static double[] averages() {
    try {
      String[] f = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
      return new double[] {Double.parseDouble(f[0]), Double.parseDouble(f[1]), Double.parseDouble(f[2])};
    } catch (IOException | RuntimeException e) {
      double one = ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
      return new double[] {one, one, one};
    }
  }

  /**
   * Returns a line such as {@code load average 0.71 0.52 0.40 (2 cores)} after {@code when},
   * followed by a warning line when the 1-minute average is above the core count.
   */
  public static String describe(String when) {
    return describe(when, averages(), Runtime.getRuntime().availableProcessors());
  }

  static String describe(String when, double[] a, int cores) {
    String line = String.format(Locale.ROOT, "%s: load average %.2f %.2f %.2f (%d cores)", when, a[0],
        a[1], a[2], cores);
    if (a[0] > cores) {
      line += String.format(Locale.ROOT, "%nwarning: the host is saturated (load average %.2f above its"
          + " %d cores): calls wait for a core, and the figures say more about the host than about the"
          + " balancers", a[0], cores);
    }
    return line;
  }
}
