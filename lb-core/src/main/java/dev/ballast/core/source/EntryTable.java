package dev.ballast.core.source;

import dev.ballast.core.Endpoint;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.BiFunction;

/**
 * A source's entries as the feed knows them, and the endpoint set they give: validates entries
 * one by one and turns changes of entries (keyed by the source) into changes of endpoints
 * (keyed by address). Used by one thread at a time.
 *
 * <p>An entry is skipped when its value does not parse (whatever the parser throws, {@link
 * Error}s included), when another entry already gives its
 * address, or when its weight would take the total over {@link Integer#MAX_VALUE}. A skipped
 * entry is reported once per value; an entry waiting on an address is taken when the entry
 * holding the address leaves, and one skipped for its weight when a later push leaves room.
 */
final class EntryTable {

  /** Reports a skipped entry: key, value, reason. */
  interface Rejections {
    void rejected(String key, String value, String reason);
  }

  private final BiFunction<String, String, Endpoint> parser;
  private final Rejections rejections;
  private final Map<String, String> entries = new HashMap<>();
  private final Map<String, Endpoint> accepted = new HashMap<>();
  private final Map<String, String> owners = new HashMap<>(); // address -> key
  private final Map<String, String> rejected = new LinkedHashMap<>(); // key -> value
  private final Map<String, String> waiting = new HashMap<>(); // key -> address it waits for
  // key -> endpoint skipped because its weight did not fit, tried again by retryOverweight
  private final Map<String, Endpoint> overweight = new LinkedHashMap<>();
  // what the sink holds, by address, and the addresses whose desired state may differ from it
  private final Map<String, Endpoint> applied = new LinkedHashMap<>();
  private final Set<String> dirty = new HashSet<>();
  private long totalWeight;

  EntryTable(BiFunction<String, String, Endpoint> parser, Rejections rejections) {
    this.parser = parser;
    this.rejections = rejections;
  }

  /** Takes a whole set: entries missing from it are removed, others upserted if changed. */
  void reset(Map<String, String> all) {
    List<String> gone = new ArrayList<>();
    for (String key : entries.keySet()) {
      if (!all.containsKey(key)) {
        gone.add(key);
      }
    }
    for (String key : gone) {
      put(key, null);
    }
    for (Map.Entry<String, String> e : all.entrySet()) {
      put(e.getKey(), e.getValue());
    }
  }

  /** Sets one entry; a null value removes it. Unchanged values cost a map look-up. */
  void put(String key, String value) {
    Objects.requireNonNull(key, "entry key");
    String old = value == null ? entries.remove(key) : entries.put(key, value);
    if (Objects.equals(old, value)) {
      return;
    }
    rejected.remove(key);
    waiting.remove(key);
    overweight.remove(key);
    Endpoint was = accepted.remove(key);
    if (was != null) {
      owners.remove(was.address());
      totalWeight -= was.weight();
      dirty.add(was.address());
    }
    if (value != null) {
      accept(key, value);
    }
    if (was != null && !owners.containsKey(was.address())) {
      promote(was.address());
    }
  }

  private void accept(String key, String value) {
    Endpoint e;
    try {
      e = Objects.requireNonNull(parser.apply(key, value), "parsed endpoint");
    } catch (RuntimeException | Error ex) {
      // Errors too: a parser's StackOverflowError on a hostile entry rejects that entry only
      reject(key, value, ex instanceof IllegalArgumentException ? String.valueOf(ex.getMessage())
          : ex.toString());
      return;
    }
    place(key, value, e);
  }

  private void place(String key, String value, Endpoint e) {
    String owner = owners.get(e.address());
    if (owner != null) {
      waiting.put(key, e.address());
      reject(key, value, "address " + e.address() + " already given by entry " + owner);
      return;
    }
    if (totalWeight + e.weight() > Integer.MAX_VALUE) {
      overweight.put(key, e);
      reject(key, value, "weight " + e.weight() + " would take the total over "
          + Integer.MAX_VALUE);
      return;
    }
    rejected.remove(key);
    accepted.put(key, e);
    owners.put(e.address(), key);
    totalWeight += e.weight();
    dirty.add(e.address());
  }

  private void reject(String key, String value, String reason) {
    if (!value.equals(rejected.put(key, value))) {
      rejections.rejected(key, value, reason);
    }
  }

  /**
   * Tries again the entries skipped because their weight did not fit, in the order they were
   * skipped: called once a push is taken in, so that whether an entry fits depends on the set
   * the push leaves, not on the order its entries were read (a set that fits is taken whole).
   */
  void retryOverweight() {
    if (overweight.isEmpty()) {
      return;
    }
    for (Map.Entry<String, Endpoint> e : new ArrayList<>(overweight.entrySet())) {
      overweight.remove(e.getKey());
      place(e.getKey(), entries.get(e.getKey()), e.getValue());
    }
  }

  // an address was freed: the first entry waiting for it takes it
  private void promote(String address) {
    for (Iterator<Map.Entry<String, String>> it = waiting.entrySet().iterator(); it.hasNext(); ) {
      Map.Entry<String, String> w = it.next();
      if (w.getValue().equals(address)) {
        it.remove();
        accept(w.getKey(), entries.get(w.getKey()));
        return;
      }
    }
  }

  /** Whether the endpoint set may differ from what the sink holds. */
  boolean hasChanges() {
    return !dirty.isEmpty();
  }

  /**
   * Returns the change from what the sink holds to the accepted set: upserts (endpoints new or
   * different) and removed addresses. {@link #commit} it once the sink took it.
   */
  Delta delta() {
    List<Endpoint> upserts = new ArrayList<>();
    List<String> removed = new ArrayList<>();
    for (String address : dirty) {
      String key = owners.get(address);
      Endpoint want = key == null ? null : accepted.get(key);
      Endpoint have = applied.get(address);
      if (want == null) {
        if (have != null) {
          removed.add(address);
        }
      } else if (!want.equals(have)) {
        upserts.add(want);
      }
    }
    return new Delta(upserts, removed);
  }

  /** Records that the sink holds the delta. */
  void commit(Delta d) {
    for (String address : d.removed) {
      applied.remove(address);
    }
    for (Endpoint e : d.upserts) {
      applied.put(e.address(), e);
    }
    dirty.clear();
  }

  /** Returns the set the sink holds once the delta is applied, in a stable order. */
  List<Endpoint> after(Delta d) {
    Map<String, Endpoint> next = new LinkedHashMap<>(applied);
    for (String address : d.removed) {
      next.remove(address);
    }
    for (Endpoint e : d.upserts) {
      next.put(e.address(), e);
    }
    return new ArrayList<>(next.values());
  }

  /** Returns how many entries are accepted: the size of the set the sink is to hold. */
  int acceptedSize() {
    return accepted.size();
  }

  /** Returns how many endpoints the sink holds. */
  int appliedSize() {
    return applied.size();
  }

  /** A change of endpoints. */
  static final class Delta {
    final List<Endpoint> upserts;
    final List<String> removed;

    Delta(List<Endpoint> upserts, List<String> removed) {
      this.upserts = upserts;
      this.removed = removed;
    }

    boolean isEmpty() {
      return upserts.isEmpty() && removed.isEmpty();
    }

    int size() {
      return upserts.size() + removed.size();
    }
  }
}
