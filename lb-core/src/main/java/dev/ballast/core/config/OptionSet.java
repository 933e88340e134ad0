package dev.ballast.core.config;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The options of one config type, and the codec between a config and a map of names to values
 * (a gRPC service config's JSON object, Spring's properties under a prefix). Decoding refuses
 * an unknown key naming the nearest known one, reads each value with its option's type and sets
 * it on a new builder, whose setters check it and whose {@code build()} checks the options
 * together; an absent key keeps the builder's default. Plain options are set first, then nested
 * sets ({@link #with}), each in definition order whatever the map's order.
 *
 * <p>Keys may be dotted ({@code slowStart.window}) or nested ({@code {"slowStart": {"window":
 * "60s"}}}); case, {@code -} and {@code _} are ignored.
 *
 * @param <C> the config type
 * @param <B> its builder
 */
public final class OptionSet<C, B> {

  private final String what;
  private final List<Option<C, B, ?>> options;
  private final Supplier<B> newBuilder;
  private final Function<B, C> build;
  // the options of nested sets, by view; each group is decoded as a whole, then set
  private final Map<Option<C, B, ?>, Group<C, B, ?, ?>> views;

  private OptionSet(String what, List<Option<C, B, ?>> options, Supplier<B> newBuilder,
      Function<B, C> build, Map<Option<C, B, ?>, Group<C, B, ?, ?>> views) {
    this.what = what;
    this.options = List.copyOf(options);
    this.newBuilder = newBuilder;
    this.build = build;
    this.views = Map.copyOf(views);
  }

  /** A nested set: its options are named {@code prefix + name} and decoded together. */
  private record Group<C, B, C2, B2>(String prefix, OptionSet<C2, B2> inner, Function<C, C2> get,
      java.util.function.BiConsumer<B, C2> set) {

    void apply(B builder, Map<String, Object> raw) {
      try {
        set.accept(builder, inner.decode(raw));
      } catch (OptionException e) {
        String name = e.option().equals(inner.what) && !prefix.isEmpty()
            ? prefix.substring(0, prefix.length() - 1)
            : prefix + e.option();
        throw new OptionException(name, e.problem(), e);
      } catch (IllegalArgumentException e) {
        // a config made from the group's values refused them: name the option it names
        String m = String.valueOf(e.getMessage());
        int colon = m.indexOf(':');
        Option<C2, B2, ?> o = colon > 0 ? inner.find(m.substring(0, colon)) : null;
        String name = o == null ? inner.what : o.name();
        Object given = o == null ? null : raw.get(name);
        throw given == null ? OptionException.of(prefix + name, e)
            : OptionException.of(prefix + name, given, e);
      }
    }
  }

  /**
   * Creates the set.
   *
   * @param what what the options configure, for messages ({@code balancer})
   * @param newBuilder a builder holding the defaults
   * @param build builds the config, checking options together
   */
  public static <C, B> OptionSet<C, B> of(String what, Supplier<B> newBuilder,
      Function<B, C> build, List<Option<C, B, ?>> options) {
    return new OptionSet<>(what, options, Objects.requireNonNull(newBuilder, "newBuilder"),
        Objects.requireNonNull(build, "build"), Map.of());
  }

  /**
   * Returns this set with the options of another config nested under {@code prefix} ({@code
   * pool.}, or {@code ""} to take them at this level): they are decoded together into that
   * config, which is then set on this builder.
   */
  public <C2, B2> OptionSet<C, B> with(String prefix, OptionSet<C2, B2> inner,
      Function<C, C2> get, java.util.function.BiConsumer<B, C2> set) {
    Group<C, B, C2, B2> g = new Group<>(prefix, inner, get, set);
    List<Option<C, B, ?>> all = new ArrayList<>(options);
    Map<Option<C, B, ?>, Group<C, B, ?, ?>> v = new java.util.HashMap<>(views);
    for (Option<C2, B2, ?> o : inner.options()) {
      Option<C, B, ?> view = view(prefix, o, get);
      all.add(view);
      v.put(view, g);
    }
    return new OptionSet<>(what, all, newBuilder, build, v);
  }

  private static <C, B, C2, B2, T> Option<C, B, T> view(String prefix, Option<C2, B2, T> o,
      Function<C, C2> get) {
    return Option.of(prefix + o.name(), o.type(), c -> o.get(get.apply(c)), (b, t) -> {
      throw new UnsupportedOperationException("set through the group");
    }, o.example(), o.badExample());
  }

  /**
   * Creates the set of a group held in {@link Values}, with the check its values must pass.
   *
   * @param check throws an {@link IllegalArgumentException} naming the option (e.g. by making
   *     the config from them)
   */
  public static OptionSet<Values, Values> ofValues(String what,
      java.util.function.Consumer<Values> check, List<Option<Values, Values, ?>> options) {
    return of(what, Values::new, v -> {
      check.accept(v);
      return v;
    }, options);
  }

  /** Returns the set without the named options (those a front end cannot honour). */
  public OptionSet<C, B> without(String... names) {
    List<Option<C, B, ?>> kept = new ArrayList<>(options);
    for (String n : names) {
      if (!kept.removeIf(o -> o.name().equals(n))) {
        throw new IllegalArgumentException("option: " + n + " (expected: one of " + names()
            + ")");
      }
    }
    return new OptionSet<>(what, kept, newBuilder, build, views);
  }

  /** Returns the options, in definition order. */
  public List<Option<C, B, ?>> options() {
    return options;
  }

  /** Returns the canonical names, in definition order. */
  public List<String> names() {
    List<String> names = new ArrayList<>();
    options.forEach(o -> names.add(o.name()));
    return names;
  }

  /** Returns the option of a name (case, {@code -} and {@code _} ignored), or null. */
  public Option<C, B, ?> find(String name) {
    for (Option<C, B, ?> o : options) {
      if (Names.same(o.name(), name)) {
        return o;
      }
    }
    return null;
  }

  /** Returns the config with every option at its default. */
  public C defaults() {
    return build.apply(newBuilder.get());
  }

  /**
   * Decodes a map of names to values into a config; null is the defaults.
   *
   * @throws OptionException naming the first bad key or value, with the nearest known one
   */
  public C decode(Map<String, ?> raw) {
    return decode(newBuilder.get(), raw);
  }

  /**
   * Decodes a map of names to values over a builder holding other defaults (a front end's base
   * settings): a given option replaces the builder's value, the others keep it.
   *
   * @throws OptionException naming the first bad key or value, with the nearest known one
   */
  public C decode(B b, Map<String, ?> raw) {
    apply(b, raw);
    try {
      return build.apply(b);
    } catch (IllegalArgumentException e) {
      String m = String.valueOf(e.getMessage());
      int colon = m.indexOf(':');
      Option<C, B, ?> o = colon > 0 ? find(m.substring(0, colon)) : null;
      throw OptionException.of(o == null ? what : o.name(), e);
    }
  }

  /**
   * Sets every option in a map of names to values on a builder.
   *
   * @throws OptionException naming the first bad key or value, with the nearest known one
   */
  public void apply(B builder, Map<String, ?> raw) {
    if (raw == null) {
      return;
    }
    checkDepth(raw);
    Map<String, Object> flat = new LinkedHashMap<>();
    flatten("", raw, flat);
    Map<Option<C, B, ?>, String> seen = new LinkedHashMap<>();
    Map<Option<C, B, ?>, Object> plain = new java.util.HashMap<>();
    Map<Group<C, B, ?, ?>, Map<String, Object>> grouped = new LinkedHashMap<>();
    for (Map.Entry<String, Object> e : flat.entrySet()) {
      Option<C, B, ?> o = find(e.getKey());
      if (o == null) {
        throw new OptionException(e.getKey(), unknownKey(e.getKey()), null);
      }
      String before = seen.put(o, e.getKey());
      if (before != null) {
        throw new OptionException(o.name(), "given twice, as " + before + " and " + e.getKey(),
            null);
      }
      Group<C, B, ?, ?> g = views.get(o);
      if (g == null) {
        plain.put(o, e.getValue());
      } else {
        grouped.computeIfAbsent(g, k -> new LinkedHashMap<>())
            .put(o.name().substring(g.prefix().length()), e.getValue());
      }
    }
    // plain options, then groups, in definition order, not in the order their keys came (a
    // map's order may be any): a later one may build on what an earlier one set (a policy's own
    // options on its name, a client's locality on the balancer its algorithm's options make)
    for (Option<C, B, ?> o : options) {
      if (plain.containsKey(o)) {
        o.set(builder, plain.get(o));
      }
    }
    for (Option<C, B, ?> o : options) {
      Group<C, B, ?, ?> g = views.get(o);
      Map<String, Object> m = g == null ? null : grouped.remove(g);
      if (m != null) {
        applyGroup(g, builder, m);
      }
    }
  }

  @SuppressWarnings("unchecked")
  private static <C, B> void applyGroup(Group<C, B, ?, ?> g, B builder, Map<String, Object> m) {
    ((Group<C, B, Object, Object>) g).apply(builder, m);
  }

  /** Returns the problem of an unknown key: the nearest known key and the known ones. */
  public String unknownKey(String key) {
    int dot = key.lastIndexOf('.');
    String group = dot < 0 ? "" : Names.normalize(key.substring(0, dot + 1));
    List<String> leaves = new ArrayList<>();
    for (String n : names()) {
      if (!group.isEmpty() && Names.normalize(n).startsWith(group)) {
        leaves.add(n.substring(n.lastIndexOf('.') + 1));
      }
    }
    String near = leaves.isEmpty() ? Names.nearest(key, names())
        : Names.nearest(key.substring(dot + 1), leaves);
    List<String> expected = names();
    if (!leaves.isEmpty()) {
      near = near == null ? null : key.substring(0, dot + 1) + near;
      expected = expected.stream().filter(n -> Names.normalize(n).startsWith(group)).toList();
    }
    return "unknown " + what + " option" + (near == null ? "" : ", did you mean " + near + "?")
        + (expected.isEmpty() ? " (expected: none, it takes no options)"
        : " (expected: one of " + String.join(", ", expected) + ")");
  }

  /** The deepest nesting of maps and lists accepted below a config's own keys. */
  public static final int MAX_DEPTH = 16;

  /**
   * Refuses a map nested deeper than {@value #MAX_DEPTH} below its keys (configs are outside
   * data: a service config, a registry's entry), walking it without recursion, so that no depth
   * can overflow a stack; the error names the top-level key.
   *
   * @throws OptionException naming the key under which the nesting is too deep
   */
  public static void checkDepth(Map<String, ?> raw) {
    ArrayDeque<Object> values = new ArrayDeque<>();
    ArrayDeque<Integer> depths = new ArrayDeque<>();
    for (Map.Entry<String, ?> field : raw.entrySet()) {
      if (field.getValue() instanceof Map || field.getValue() instanceof List) {
        values.push(field.getValue());
        depths.push(1);
      }
      while (!values.isEmpty()) {
        Object v = values.pop();
        int depth = depths.pop();
        if (depth > MAX_DEPTH) {
          throw new OptionException(String.valueOf(field.getKey()), "nested more than "
              + MAX_DEPTH + " deep (expected: at most " + MAX_DEPTH + ")", null);
        }
        for (Object child : v instanceof Map<?, ?> m ? m.values() : (List<?>) v) {
          if (child instanceof Map || child instanceof List) {
            values.push(child);
            depths.push(depth + 1);
          }
        }
      }
    }
  }

  private void flatten(String prefix, Map<String, ?> raw, Map<String, Object> out) {
    for (Map.Entry<String, ?> e : raw.entrySet()) {
      String key = prefix + e.getKey();
      if (e.getValue() instanceof Map && find(key) == null && isGroup(key)) {
        @SuppressWarnings("unchecked")
        Map<String, ?> group = (Map<String, ?>) e.getValue();
        flatten(key + ".", group, out);
      } else {
        out.put(key, e.getValue());
      }
    }
  }

  private boolean isGroup(String key) {
    String n = Names.normalize(key) + ".";
    for (Option<C, B, ?> o : options) {
      if (Names.normalize(o.name()).startsWith(n)) {
        return true;
      }
    }
    return false;
  }

  /**
   * Encodes a config as a map of names to JSON values, groups nested ({@code {"slowStart":
   * {"window": "60s"}}}), with only the options that differ from their defaults: a gRPC service
   * config that {@link #decode} reads back into an equal config.
   */
  public Map<String, Object> encode(C config) {
    C defaults = defaults();
    Map<String, Object> out = new LinkedHashMap<>();
    for (Option<C, B, ?> o : options) {
      Object v = o.write(config);
      if (v == null || Objects.equals(v, o.write(defaults))) {
        continue;
      }
      Map<String, Object> at = out;
      String[] parts = o.name().split("\\.");
      for (int i = 0; i < parts.length - 1; i++) {
        @SuppressWarnings("unchecked")
        Map<String, Object> next = (Map<String, Object>) at.computeIfAbsent(parts[i],
            k -> new LinkedHashMap<String, Object>());
        at = next;
      }
      at.put(parts[parts.length - 1], v);
    }
    return out;
  }

  /** Returns the options of several sets, for a front end that reads them under one prefix. */
  public static List<String> names(Collection<? extends OptionSet<?, ?>> sets) {
    List<String> names = new ArrayList<>();
    sets.forEach(s -> names.addAll(s.names()));
    return names;
  }

  @Override
  public String toString() {
    return what + names();
  }
}
