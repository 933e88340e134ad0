package dev.ballast.core.locality;

import dev.ballast.core.Endpoint;
import dev.ballast.core.internal.LabelSyntax;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * Immutable settings of priorities, localities and zone-aware routing ({@link
 * LocalityBalancer}), after Envoy's load balancing of priority levels and localities. Its options
 * by name are {@link dev.ballast.core.policy.CoreOptions#LOCALITY}: {@code
 * overprovisioningFactor} (1.4), {@code panicThreshold} (50), {@code localZone} (none), {@code
 * callerZones} (none) and {@code minClusterSize} (6).
 *
 * <p>Zone-aware routing is on when both the caller's own zone and the callers' shares per zone
 * are known; otherwise localities are weighted by their endpoints' weights scaled by
 * availability. When it is on, it routes priority 0's healthy endpoints only where Envoy's code
 * would (at least two zones of endpoints and of callers, callers in the local zone, at least
 * {@link #minClusterSize()} healthy endpoints); other picks go to endpoints by weight, ignoring
 * zones.
 *
 * @see <a href="https://www.envoyproxy.io/docs/envoy/latest/intro/arch_overview/upstream/load_balancing/priority">Envoy:
 *     priority levels</a>
 * @see <a href="https://www.envoyproxy.io/docs/envoy/latest/intro/arch_overview/upstream/load_balancing/zone_aware">Envoy:
 *     zone aware routing</a>
 */
public final class LocalityConfig {

  private static final LocalityConfig DEFAULTS = builder().build();

  private final double overprovisioningFactor;
  private final double panicThreshold;
  private final String localZone;
  private final Map<String, Double> callerZones;
  private final int minClusterSize;

  private LocalityConfig(Builder b) {
    this.overprovisioningFactor = b.overprovisioningFactor;
    this.panicThreshold = b.panicThreshold;
    this.localZone = b.localZone;
    this.callerZones = Map.copyOf(b.callerZones);
    this.minClusterSize = b.minClusterSize;
  }

  /** Returns the defaults: factor 1.4, panic below 50%, zone-aware routing off. */
  public static LocalityConfig defaults() {
    return DEFAULTS;
  }

  /** Returns a builder holding the defaults. */
  public static Builder builder() {
    return new Builder();
  }

  /** Returns a builder holding these settings. */
  public Builder toBuilder() {
    Builder b = new Builder();
    b.overprovisioningFactor = overprovisioningFactor;
    b.panicThreshold = panicThreshold;
    b.localZone = localZone;
    b.callerZones.putAll(callerZones);
    b.minClusterSize = minClusterSize;
    return b;
  }

  /**
   * Returns the overprovisioning factor (default 1.4): a priority or a locality keeps its whole
   * share while its available fraction of endpoints times this factor is at least 1 (above
   * 71.4% available by default).
   */
  public double overprovisioningFactor() {
    return overprovisioningFactor;
  }

  /**
   * Returns the panic threshold in percent (default 50): when the priorities together cannot
   * take all the traffic, a priority with fewer available endpoints than this spreads its share
   * over all its endpoints, whatever their health; 0 turns panic off.
   */
  public double panicThreshold() {
    return panicThreshold;
  }

  /** Returns the caller's own zone, or null (the default: zone-aware routing off). */
  public String localZone() {
    return localZone;
  }

  /**
   * Returns the callers' shares by zone (how the calling fleet is spread over the zones, in any
   * unit: instance counts or fractions), sorted by zone; empty by default (zone-aware routing
   * off).
   */
  public Map<String, Double> callerZones() {
    return new TreeMap<>(callerZones);
  }

  /** The callers' shares as given, unmodifiable, without a copy (for the tables). */
  Map<String, Double> callerZoneShares() {
    return callerZones;
  }

  /**
   * Returns the fewest healthy endpoints of priority 0 for zone-aware routing to apply (default
   * 6, as Envoy's {@code min_cluster_size}); below it, healthy endpoints are picked by weight,
   * ignoring zones.
   */
  public int minClusterSize() {
    return minClusterSize;
  }

  /** Returns whether zone-aware routing is on: a local zone and caller shares are set. */
  public boolean zoneAware() {
    return localZone != null && !callerZones.isEmpty();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof LocalityConfig c
        && c.overprovisioningFactor == overprovisioningFactor
        && c.panicThreshold == panicThreshold && Objects.equals(c.localZone, localZone)
        && c.callerZones.equals(callerZones) && c.minClusterSize == minClusterSize;
  }

  @Override
  public int hashCode() {
    return Objects.hash(overprovisioningFactor, panicThreshold, localZone, callerZones,
        minClusterSize);
  }

  @Override
  public String toString() {
    return "LocalityConfig{overprovisioningFactor=" + overprovisioningFactor + ", panicThreshold="
        + panicThreshold + ", localZone=" + localZone + ", callerZones=" + callerZones()
        + ", minClusterSize=" + minClusterSize + "}";
  }

  /** Builds a {@link LocalityConfig}; every setter documents its default and range. */
  public static final class Builder {
    private double overprovisioningFactor = 1.4;
    private double panicThreshold = 50;
    private String localZone;
    private final Map<String, Double> callerZones = new TreeMap<>();
    private int minClusterSize = 6;

    private Builder() {}

    /** Sets the overprovisioning factor, at least 1 and at most 100; default 1.4. */
    public Builder overprovisioningFactor(double factor) {
      if (!(factor >= 1 && factor <= 100)) {
        throw new IllegalArgumentException(
            "overprovisioningFactor: " + factor + " (expected: 1-100)");
      }
      this.overprovisioningFactor = factor;
      return this;
    }

    /** Sets the panic threshold in percent, 0 (never panic) to 100; default 50. */
    public Builder panicThreshold(double percent) {
      if (!(percent >= 0 && percent <= 100)) {
        throw new IllegalArgumentException("panicThreshold: " + percent + " (expected: 0-100)");
      }
      this.panicThreshold = percent;
      return this;
    }

    /**
     * Sets the caller's own zone, as the endpoints' {@code zone} label names zones; null turns
     * zone-aware routing off (the default).
     */
    public Builder localZone(String zone) {
      this.localZone = zone == null ? null : checkZone("localZone", zone);
      return this;
    }

    /**
     * Sets the callers' shares by zone, replacing any given before: finite non-negative numbers
     * in any unit (instance counts, fractions; up to the largest double, their ratios count), at
     * least one positive; an empty map turns zone-aware routing off (the default). As in Envoy,
     * routing needs callers in at least two zones, one of them the local zone.
     */
    public Builder callerZones(Map<String, ? extends Number> shares) {
      Objects.requireNonNull(shares, "callerZones");
      Map<String, Double> out = new TreeMap<>();
      double sum = 0;
      for (Map.Entry<String, ? extends Number> e : shares.entrySet()) {
        String zone = Objects.requireNonNull(e.getKey(), "callerZones zone");
        double share = Objects.requireNonNull(e.getValue(), "callerZones share").doubleValue();
        checkZone("callerZones", zone);
        if (!(share >= 0) || Double.isInfinite(share)) {
          throw new IllegalArgumentException("callerZones: " + zone + "=" + e.getValue()
              + " (expected: a zone name and a finite share >= 0)");
        }
        out.put(zone, share);
        sum += share;
      }
      if (!out.isEmpty() && sum <= 0) {
        throw new IllegalArgumentException(
            "callerZones: " + out + " (expected: at least one share > 0)");
      }
      callerZones.clear();
      callerZones.putAll(out);
      return this;
    }

    private static String checkZone(String option, String zone) {
      try {
        LabelSyntax.check(Endpoint.ZONE, zone, "");
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(option + ": \"" + zone + "\" (expected: a zone as"
            + " endpoints' zone label names it, without spaces, ';', ',' or '=')", e);
      }
      return zone;
    }

    /** Sets the fewest healthy priority-0 endpoints for zone-aware routing; default 6. */
    public Builder minClusterSize(int size) {
      if (size < 0) {
        throw new IllegalArgumentException("minClusterSize: " + size + " (expected: >= 0)");
      }
      this.minClusterSize = size;
      return this;
    }

    /** Returns the settings. */
    public LocalityConfig build() {
      return new LocalityConfig(this);
    }
  }
}
