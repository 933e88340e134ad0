package dev.ballast.core.subset;

/**
 * What a {@link SubsetSelector} does when a request's labels match no subset (Envoy's names for
 * its subset load balancer's fallback policies).
 */
public enum FallbackPolicy {
  /** Fail the pick with {@link dev.ballast.core.NoAvailableEndpointException}; the default. */
  NO_FALLBACK,
  /** Balance over every endpoint, whatever its labels. */
  ANY_ENDPOINT,
  /**
   * Balance over the endpoints that have the configured default labels; when none has them, fail
   * as {@link #NO_FALLBACK} does.
   */
  DEFAULT_SUBSET;

  /** Says why this fallback found no endpoint either, for a pick's error. */
  String unmet(RequestLabels defaultLabels) {
    return switch (this) {
      case DEFAULT_SUBSET -> "fallback DEFAULT_SUBSET " + defaultLabels
          + " matches no endpoint either";
      case ANY_ENDPOINT -> "fallback ANY_ENDPOINT, but there are no endpoints";
      case NO_FALLBACK -> "fallback NO_FALLBACK";
    };
  }
}
