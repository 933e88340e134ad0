package dev.ballast.core;

/**
 * Thrown by {@link Balancer#pick()} when there is nothing to pick: the endpoint set is empty, or
 * no node is open and the balancer is not configured to {@linkplain BalancerConfig#panicPick()
 * pick anyway}.
 */
public final class NoAvailableEndpointException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  private final String balancer;
  private final int endpoints;

  /**
   * Creates the exception.
   *
   * @param balancer the algorithm name that failed to pick
   * @param endpoints how many endpoints the balancer had (0 when the set was empty)
   */
  public NoAvailableEndpointException(String balancer, int endpoints) {
    this(balancer, endpoints, endpoints == 0
        ? balancer + ": no endpoints"
        : balancer + ": no available endpoint (all " + endpoints + " busy or closed)");
  }

  /**
   * Creates the exception with a message of its own, for balancers that know more about why
   * (e.g. request labels that match no subset).
   *
   * @param balancer the name of the balancer that failed to pick
   * @param endpoints how many endpoints it could have picked from (0 when none matched)
   * @param message the whole message, naming what was asked for
   */
  public NoAvailableEndpointException(String balancer, int endpoints, String message) {
    super(message);
    this.balancer = balancer;
    this.endpoints = endpoints;
  }

  /** Returns the name of the algorithm that failed to pick. */
  public String balancer() {
    return balancer;
  }

  /** Returns how many endpoints the balancer had; 0 means the set was empty. */
  public int endpoints() {
    return endpoints;
  }
}
