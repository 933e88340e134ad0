package dev.ballast.netty.http;

import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.Set;

/**
 * HTTP header fields, immutable. Names are case-insensitive (RFC 9110, section 5.1): they are
 * kept lower-case, and every lookup takes a name in any case. Fields keep their order and their
 * multiplicity: a name given twice is two fields, never one joined value, since some (such as
 * {@code Set-Cookie}) cannot be joined (RFC 9110, section 5.3). Every name must be a token and
 * every value a field value (RFC 9110, sections 5.1 and 5.5: no CR, LF, NUL or other control
 * character but tab), so that no header can split a message in two.
 */
public final class Headers implements Iterable<Map.Entry<String, String>> {

  /** No fields. */
  public static final Headers EMPTY = new Headers(new String[0]);

  private final String[] fields; // name, value, name, value, ...

  private Headers(String[] fields) {
    this.fields = fields;
  }

  /**
   * Returns the fields given as name, value pairs, e.g. {@code Headers.of("Accept", "text/plain",
   * "Set-Cookie", "a=1", "Set-Cookie", "b=2")}.
   *
   * @throws IllegalArgumentException if a name or value is not valid, or a value is missing
   */
  public static Headers of(String... namesAndValues) {
    if (namesAndValues.length % 2 != 0) {
      throw new IllegalArgumentException("namesAndValues: " + namesAndValues.length
          + " strings (expected: name, value pairs)");
    }
    String[] f = new String[namesAndValues.length];
    for (int i = 0; i < f.length; i += 2) {
      f[i] = checkName(namesAndValues[i]);
      f[i + 1] = checkValue(f[i], namesAndValues[i + 1]);
    }
    return new Headers(f);
  }

  /** Returns a builder of fields, for many at once. */
  public static Builder builder() {
    return new Builder();
  }

  /** Returns the number of fields (a name given twice counts twice). */
  public int size() {
    return fields.length / 2;
  }

  /** Returns the first value of the named field, or {@code null}. */
  public String get(String name) {
    String n = lower(name);
    for (int i = 0; i < fields.length; i += 2) {
      if (fields[i].equals(n)) {
        return fields[i + 1];
      }
    }
    return null;
  }

  /** Returns every value of the named field, in order; empty if there is none. */
  public List<String> getAll(String name) {
    String n = lower(name);
    List<String> values = new ArrayList<>(2);
    for (int i = 0; i < fields.length; i += 2) {
      if (fields[i].equals(n)) {
        values.add(fields[i + 1]);
      }
    }
    return List.copyOf(values);
  }

  /** Returns whether there is a field of this name. */
  public boolean contains(String name) {
    return get(name) != null;
  }

  /** Returns the distinct names, lower-case, in order of first appearance. */
  public Set<String> names() {
    Set<String> names = new LinkedHashSet<>();
    for (int i = 0; i < fields.length; i += 2) {
      names.add(fields[i]);
    }
    return names;
  }

  /** Returns these fields with every field of this name replaced by one with this value. */
  public Headers with(String name, String value) {
    return without(name).plus(name, value);
  }

  /** Returns these fields and one more, after them. */
  public Headers plus(String name, String value) {
    String n = checkName(name);
    String[] f = Arrays.copyOf(fields, fields.length + 2);
    f[fields.length] = n;
    f[fields.length + 1] = checkValue(n, value);
    return new Headers(f);
  }

  /** Returns these fields without those of this name. */
  public Headers without(String name) {
    String n = lower(name);
    String[] f = new String[fields.length];
    int j = 0;
    for (int i = 0; i < fields.length; i += 2) {
      if (!fields[i].equals(n)) {
        f[j++] = fields[i];
        f[j++] = fields[i + 1];
      }
    }
    return j == fields.length ? this : new Headers(Arrays.copyOf(f, j));
  }

  /** Returns the name of field {@code i} (0-based, in order). */
  public String name(int i) {
    return fields[2 * Objects.checkIndex(i, size())];
  }

  /** Returns the value of field {@code i} (0-based, in order). */
  public String value(int i) {
    return fields[2 * Objects.checkIndex(i, size()) + 1];
  }

  /** Iterates over the fields in order, as (lower-case name, value) entries. */
  @Override
  public Iterator<Map.Entry<String, String>> iterator() {
    return new Iterator<>() {
      private int i;

      @Override
      public boolean hasNext() {
        return i < fields.length;
      }

      @Override
      public Map.Entry<String, String> next() {
        if (i >= fields.length) {
          throw new NoSuchElementException();
        }
        Map.Entry<String, String> e = new AbstractMap.SimpleImmutableEntry<>(fields[i],
            fields[i + 1]);
        i += 2;
        return e;
      }
    };
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Headers h && Arrays.equals(fields, h.fields);
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(fields);
  }

  @Override
  public String toString() {
    StringBuilder sb = new StringBuilder("[");
    for (int i = 0; i < fields.length; i += 2) {
      sb.append(i == 0 ? "" : ", ").append(fields[i]).append(": ").append(fields[i + 1]);
    }
    return sb.append(']').toString();
  }

  private static String lower(String name) {
    return Objects.requireNonNull(name, "name").toLowerCase(Locale.ROOT);
  }

  /**
   * Returns the name lower-case if it is a token (RFC 9110, section 5.6.2).
   *
   * @throws IllegalArgumentException naming the bad character otherwise
   */
  static String checkName(String name) {
    String n = lower(name);
    if (n.isEmpty()) {
      throw new IllegalArgumentException("header name: empty (expected: a token)");
    }
    for (int i = 0; i < n.length(); i++) {
      if (!isTokenChar(n.charAt(i))) {
        throw new IllegalArgumentException("header name: \"" + printable(name) + "\" (expected: a "
            + "token, without " + describe(n.charAt(i)) + ")");
      }
    }
    return n;
  }

  /**
   * Returns the value if it is a field value (RFC 9110, section 5.5: visible characters, space,
   * tab and obs-text, not starting or ending with whitespace).
   *
   * @throws IllegalArgumentException naming the header and the bad character otherwise
   */
  static String checkValue(String name, String value) {
    Objects.requireNonNull(value, "value");
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if ((c < 0x20 && c != '\t') || c == 0x7f || c > 0xff) {
        throw new IllegalArgumentException("header " + name + ": \"" + printable(value)
            + "\" (expected: a field value, without " + describe(c) + ")");
      }
    }
    if (!value.isEmpty() && (isSpace(value.charAt(0)) || isSpace(value.charAt(value.length() - 1)))) {
      throw new IllegalArgumentException("header " + name + ": \"" + printable(value)
          + "\" (expected: no leading or trailing whitespace)");
    }
    return value;
  }

  private static boolean isSpace(char c) {
    return c == ' ' || c == '\t';
  }

  /** Returns whether {@code c} is a tchar of RFC 9110, section 5.6.2. */
  static boolean isTokenChar(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
        || "!#$%&'*+-.^_`|~".indexOf(c) >= 0;
  }

  /** Returns the text with control characters escaped, to quote it in a message. */
  static String printable(String s) {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < Math.min(s.length(), 100); i++) {
      char c = s.charAt(i);
      sb.append(c < 0x20 || c == 0x7f ? String.format("\\x%02x", (int) c) : String.valueOf(c));
    }
    return s.length() > 100 ? sb.append("...").toString() : sb.toString();
  }

  /** Names a character for a message: {@code a space}, {@code \x0d}, {@code '"'}. */
  static String describe(char c) {
    return c == ' ' ? "a space" : c < 0x20 || c == 0x7f ? String.format("\\x%02x", (int) c)
        : "'" + c + "'";
  }

  /** Collects fields; each is checked as it is added. */
  public static final class Builder {
    private final List<String> fields = new ArrayList<>();

    private Builder() {}

    /**
     * Adds a field after those added so far.
     *
     * @throws IllegalArgumentException if the name or value is not valid
     */
    public Builder add(String name, String value) {
      String n = checkName(name);
      fields.add(n);
      fields.add(checkValue(n, value));
      return this;
    }

    /** Returns the fields added. */
    public Headers build() {
      return fields.isEmpty() ? EMPTY : new Headers(fields.toArray(new String[0]));
    }
  }
}
