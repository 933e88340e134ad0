package dev.ballast.core.source;

import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What a source pushed since the feed's last apply: a whole set with later changes folded in,
 * or changes alone (a null value: the key was removed). Not thread-safe: the feed holds its
 * lock.
 */
final class Pushes {

  private Map<String, String> all;
  private final Map<String, String> changes = new LinkedHashMap<>();

  /** A whole set: replaces whatever is pending. */
  void entries(Map<String, String> entries) {
    all = new HashMap<>(entries);
    changes.clear();
  }

  /** Changes: folded into a pending whole set, or kept as changes. */
  void changes(Map<String, String> upserts, Collection<String> removedKeys) {
    for (String key : removedKeys) {
      if (all != null) {
        all.remove(key);
      } else {
        changes.put(key, null);
      }
    }
    (all != null ? all : changes).putAll(upserts);
  }

  /** Returns the pending whole set, or null, and forgets it. */
  Map<String, String> takeAll() {
    Map<String, String> out = all;
    all = null;
    return out;
  }

  /** Returns the pending changes (null values: removed) and forgets them. */
  Map<String, String> takeChanges() {
    Map<String, String> out = changes.isEmpty() ? Map.of() : new LinkedHashMap<>(changes);
    changes.clear();
    return out;
  }

  /** Forgets everything pending. */
  void clear() {
    all = null;
    changes.clear();
  }
}
