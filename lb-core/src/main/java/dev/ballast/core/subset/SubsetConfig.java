package dev.ballast.core.subset;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * Immutable settings of label subsets (Envoy's subset load balancer): which label keys make
 * subsets, what an unmatched request gets, and, for the gRPC policy, which headers carry a call's
 * labels. Its options by name are {@link dev.ballast.core.policy.CoreOptions#SUBSET}. Subsets
 * are off while there is no selector.
 */
public final class SubsetConfig {

  /** The default header prefix: request label {@code zone} travels in header {@code x-lb-zone}. */
  public static final String DEFAULT_HEADER_PREFIX = "x-lb-";

  private static final SubsetConfig DEFAULTS = builder().build();

  private final List<List<String>> selectors;
  private final FallbackPolicy fallbackPolicy;
  private final Map<String, String> defaultSubset;
  private final boolean allowRedundantKeys;
  private final String headerPrefix;

  private SubsetConfig(Builder b) {
    this.selectors = List.copyOf(b.selectors);
    this.fallbackPolicy = b.fallbackPolicy;
    this.defaultSubset = b.defaultSubset;
    this.allowRedundantKeys = b.allowRedundantKeys;
    this.headerPrefix = b.headerPrefix;
  }

  /** Returns the defaults: no selector (subsets off). */
  public static SubsetConfig defaults() {
    return DEFAULTS;
  }

  /** Returns a builder holding the defaults. */
  public static Builder builder() {
    return new Builder();
  }

  /** Returns the selectors, each a sorted list of label keys; none by default. */
  public List<List<String>> selectors() {
    return selectors;
  }

  /** Returns whether any selector is set. */
  public boolean enabled() {
    return !selectors.isEmpty();
  }

  /** Returns what an unmatched request gets; default {@link FallbackPolicy#NO_FALLBACK}. */
  public FallbackPolicy fallbackPolicy() {
    return fallbackPolicy;
  }

  /** Returns the default subset's labels, or null (the default: none). */
  public Map<String, String> defaultSubset() {
    return defaultSubset;
  }

  /** Returns whether request labels outside every selector are ignored; default false. */
  public boolean allowRedundantKeys() {
    return allowRedundantKeys;
  }

  /** Returns the prefix of the gRPC headers carrying request labels; default {@code x-lb-}. */
  public String headerPrefix() {
    return headerPrefix;
  }

  /** Returns a builder holding these settings. */
  public Builder toBuilder() {
    return builder().selectors(selectors).fallbackPolicy(fallbackPolicy)
        .defaultSubset(defaultSubset).allowRedundantKeys(allowRedundantKeys)
        .headerPrefix(headerPrefix);
  }

  /** Applies the subset settings to a selector's builder. */
  public <T> SubsetSelector.Builder<T> applyTo(SubsetSelector.Builder<T> b) {
    b.selectors(selectors).fallbackPolicy(fallbackPolicy).allowRedundantKeys(allowRedundantKeys);
    if (defaultSubset != null) {
      b.defaultSubset(defaultSubset);
    }
    return b;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof SubsetConfig c && selectors.equals(c.selectors)
        && fallbackPolicy == c.fallbackPolicy && Objects.equals(defaultSubset, c.defaultSubset)
        && allowRedundantKeys == c.allowRedundantKeys && headerPrefix.equals(c.headerPrefix);
  }

  @Override
  public int hashCode() {
    return Objects.hash(selectors, fallbackPolicy, defaultSubset, allowRedundantKeys,
        headerPrefix);
  }

  @Override
  public String toString() {
    return "SubsetConfig{selectors=" + selectors + ", fallbackPolicy=" + fallbackPolicy
        + ", defaultSubset=" + defaultSubset + ", allowRedundantKeys=" + allowRedundantKeys
        + ", headerPrefix=" + headerPrefix + "}";
  }

  /** Builds a {@link SubsetConfig}; every setter checks its argument. */
  public static final class Builder {
    private List<List<String>> selectors = List.of();
    private FallbackPolicy fallbackPolicy = FallbackPolicy.NO_FALLBACK;
    private Map<String, String> defaultSubset;
    private boolean allowRedundantKeys;
    private String headerPrefix = DEFAULT_HEADER_PREFIX;

    private Builder() {}

    /**
     * Sets the selectors, each a non-empty set of label keys, none repeated; empty (the default)
     * turns subsets off.
     */
    public Builder selectors(Collection<? extends Collection<String>> selectors) {
      SubsetSelector.Builder<Object> check = SubsetSelector.builder();
      List<List<String>> copy = new ArrayList<>();
      for (Collection<String> keys : Objects.requireNonNull(selectors, "selectors")) {
        try {
          check.selector(keys);
        } catch (IllegalArgumentException e) {
          throw new IllegalArgumentException("selectors: " + selectors + " (expected: sets of"
              + " label keys, none empty, no key twice in a set, no set twice)", e);
        }
        copy.add(List.copyOf(new java.util.TreeSet<>(keys)));
      }
      this.selectors = List.copyOf(copy);
      return this;
    }

    /** Sets what an unmatched request gets; default {@link FallbackPolicy#NO_FALLBACK}. */
    public Builder fallbackPolicy(FallbackPolicy policy) {
      this.fallbackPolicy = Objects.requireNonNull(policy, "fallbackPolicy");
      return this;
    }

    /**
     * Sets the default subset's labels (non-empty keys and values), read under {@link
     * FallbackPolicy#DEFAULT_SUBSET}; null for none (the default).
     */
    public Builder defaultSubset(Map<String, String> labels) {
      if (labels != null) {
        for (Map.Entry<String, String> e : labels.entrySet()) {
          if (e.getKey().isEmpty() || e.getValue() == null || e.getValue().isEmpty()) {
            throw new IllegalArgumentException("defaultSubset: " + labels
                + " (expected: non-empty label keys and values)");
          }
        }
      }
      this.defaultSubset = labels == null ? null : java.util.Collections.unmodifiableMap(
          new TreeMap<>(labels));
      return this;
    }

    /** Sets whether request labels outside every selector are ignored; default false. */
    public Builder allowRedundantKeys(boolean allow) {
      this.allowRedundantKeys = allow;
      return this;
    }

    /**
     * Sets the prefix of the gRPC headers carrying request labels: lowercase letters, digits,
     * {@code -}, {@code _} or {@code .}; default {@code x-lb-}.
     */
    public Builder headerPrefix(String prefix) {
      Objects.requireNonNull(prefix, "headerPrefix");
      for (int i = 0; i < prefix.length(); i++) {
        char c = prefix.charAt(i);
        if (!(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.')) {
          throw new IllegalArgumentException("headerPrefix: " + prefix
              + " (expected: lowercase letters, digits, '-', '_' or '.')");
        }
      }
      this.headerPrefix = prefix;
      return this;
    }

    /**
     * Returns the settings.
     *
     * @throws IllegalArgumentException if the fallback policy is DEFAULT_SUBSET without labels
     */
    public SubsetConfig build() {
      if (fallbackPolicy == FallbackPolicy.DEFAULT_SUBSET && defaultSubset == null) {
        throw new IllegalArgumentException("defaultSubset: none (expected: labels when"
            + " fallbackPolicy is default_subset)");
      }
      return new SubsetConfig(this);
    }
  }
}
