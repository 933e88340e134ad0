package dev.ballast.core.config;

import java.util.Collection;
import java.util.Locale;

/**
 * Name matching for configuration keys and values: case, {@code -} and {@code _} are ignored
 * ({@code p2c-peak-ewma}, {@code p2c_peak_ewma} and {@code P2C_PEAK_EWMA} are one name), and an
 * unknown name gets the nearest known one by edit distance.
 */
public final class Names {

  private Names() {}

  /** Returns the name lower-cased with {@code -} and {@code _} removed. */
  public static String normalize(String name) {
    StringBuilder b = new StringBuilder(name.length());
    for (int i = 0; i < name.length(); i++) {
      char c = name.charAt(i);
      if (c != '-' && c != '_') {
        b.append(c);
      }
    }
    return b.toString().trim().toLowerCase(Locale.ROOT);
  }

  /** Returns whether two names are the same once {@linkplain #normalize normalized}. */
  public static boolean same(String a, String b) {
    return normalize(a).equals(normalize(b));
  }

  /**
   * Returns the known name nearest to {@code name} (Levenshtein distance over normalized names,
   * at most a third of its length and at least 2), or null if none is that near.
   */
  public static String nearest(String name, Collection<String> known) {
    String wanted = normalize(name);
    String best = null;
    int bestDistance = Math.max(2, wanted.length() / 3) + 1;
    for (String k : known) {
      int d = distance(wanted, normalize(k));
      if (d < bestDistance) {
        best = k;
        bestDistance = d;
      }
    }
    return best;
  }

  /**
   * Returns the message for an unknown name: {@code what: "name" (did you mean x? expected: one
   * of a, b, c)}.
   */
  public static String unknown(String what, String name, Collection<String> known) {
    String near = nearest(name, known);
    return what + ": \"" + name + "\" (" + (near == null ? "" : "did you mean " + near + "? ")
        + "expected: one of " + String.join(", ", known) + ")";
  }

  /** Levenshtein distance. */
  static int distance(String a, String b) {
    int[] prev = new int[b.length() + 1];
    int[] cur = new int[b.length() + 1];
    for (int j = 0; j <= b.length(); j++) {
      prev[j] = j;
    }
    for (int i = 1; i <= a.length(); i++) {
      cur[0] = i;
      for (int j = 1; j <= b.length(); j++) {
        int substitute = prev[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
        cur[j] = Math.min(substitute, Math.min(prev[j], cur[j - 1]) + 1);
      }
      int[] t = prev;
      prev = cur;
      cur = t;
    }
    return prev[b.length()];
  }
}
