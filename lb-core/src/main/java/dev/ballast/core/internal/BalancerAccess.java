package dev.ballast.core.internal;

import dev.ballast.core.Balancer;
import dev.ballast.core.Endpoint;
import dev.ballast.core.Node;
import java.util.Arrays;

/**
 * lb-core's own way into its balancers, for its composites in other packages (the label subsets):
 * they make the nodes and check the endpoint set themselves, then give each child balancer a part
 * of it, which need not be checked nor its addresses hashed again. Not API.
 *
 * <p>The balancers' base class lends the trusted calls when it is first loaded (the JDK's
 * "shared secrets" pattern); a balancer of another make gets the public, checking ones.
 */
public final class BalancerAccess {

  /** The trusted calls, lent by the balancers' base class. */
  public interface Lender {
    /** Returns whether the balancer is one of lb-core's algorithms. */
    boolean owns(Balancer<?> balancer);

    /** Returns whether the balancer's algorithm rejects some weights whose sum fits an int. */
    boolean limitsWeights(Balancer<?> balancer);

    /** Throws what {@code update} would for these weights, beyond their sum. */
    void checkWeights(Balancer<?> balancer, int[] weights);

    /** Balances exactly these nodes with these weights, neither checked nor copied. */
    <T> void setValidatedNodes(Balancer<T> balancer, Node<T>[] nodes, int[] weights);
  }

  private static volatile Lender lender;

  private BalancerAccess() {}

  /** Takes the trusted calls; only the first lender counts. */
  public static synchronized void lend(Lender l) {
    if (lender == null) {
      lender = l;
    }
  }

  private static Lender of(Balancer<?> balancer) {
    Lender l = lender;
    return l != null && l.owns(balancer) ? l : null;
  }

  /**
   * Returns whether {@link #validate} must see the members' weights: the balancer's algorithm
   * limits them beyond their sum, or the balancer is not lb-core's (and checks its own way).
   */
  public static boolean limitsWeights(Balancer<?> balancer) {
    Lender l = of(balancer);
    return l == null || l.limitsWeights(balancer);
  }

  /**
   * Throws {@link IllegalArgumentException} if the balancer's algorithm would reject a set of
   * these endpoints whose addresses are distinct and whose weights fit an int when summed (all
   * the caller checked); {@code weights[i]} is {@code endpoints[i]}'s.
   */
  public static void validate(Balancer<?> balancer, Endpoint[] endpoints, int[] weights) {
    Lender l = of(balancer);
    if (l != null) {
      l.checkWeights(balancer, weights);
    } else {
      balancer.validate(Arrays.asList(endpoints));
    }
  }

  /**
   * Gives the balancer exactly these nodes, made by a balancer of its algorithm, with distinct
   * addresses and these weights, which {@link #validate} accepted: lb-core's balancers take them
   * as they are (the arrays are kept); others through {@link Balancer#setNodes}.
   */
  public static <T> void setValidatedNodes(Balancer<T> balancer, Node<T>[] nodes, int[] weights) {
    Lender l = of(balancer);
    if (l != null) {
      l.setValidatedNodes(balancer, nodes, weights);
    } else {
      balancer.setNodes(Arrays.asList(nodes));
    }
  }
}
