package dev.ballast.spring.internal;

import dev.ballast.spring.InvalidBallastPropertyException;
import java.util.Locale;
import org.springframework.core.env.EnumerablePropertySource;

/**
 * The names of {@code ballast.} properties as written in their source, before Spring's
 * property names drop the characters they do not take: {@code ballast.clients.ordеrs.endpoints}
 * with a Cyrillic {@code е} would be bound as client {@code ordrs}, and every error would name
 * that. A name holding a character outside ASCII, or a control character, is refused as
 * written.
 */
final class RawNames {

  private RawNames() {}

  /** Checks the names of a property source's {@code ballast} properties, if it lists them. */
  static void check(Object underlying) {
    if (!(underlying instanceof EnumerablePropertySource<?> source)) {
      return;
    }
    for (String raw : source.getPropertyNames()) {
      if (!isBallast(raw)) {
        continue;
      }
      for (int i = 0; i < raw.length(); i++) {
        char c = raw.charAt(i);
        if (c < ' ' || c > '~') {
          throw new InvalidBallastPropertyException(raw, source.getProperty(raw),
              String.format(Locale.ROOT, "%s U+%04X at index %d of the name, which Spring's "
                  + "property names drop", Character.isISOControl(c) ? "control character"
                  : "character '" + c + "'", (int) c, i),
              "a name in ASCII letters, digits, '-', '_' and '.', e.g. "
                  + "ballast.clients.orders.endpoints");
        }
      }
    }
  }

  private static boolean isBallast(String raw) {
    return raw.length() > "ballast".length()
        && raw.regionMatches(true, 0, "ballast", 0, "ballast".length())
        && ".[_".indexOf(raw.charAt("ballast".length())) >= 0;
  }
}
