package dev.ballast.netty;

import dev.ballast.core.Endpoint;

/**
 * One attempt of a call: its number, whether it is a hedge, the endpoint the balancer picked,
 * and, once it has ended, how the {@link ResponseClassifier} classified its outcome.
 *
 * <p>Implemented by the client; thread-safe.
 *
 * @param <Req> the request type
 */
public interface AttemptContext<Req> {

  /** Returns the call this attempt belongs to. */
  CallContext<Req> call();

  /** Returns the attempt's number: 1 for the first, in the order attempts start. */
  int number();

  /** Returns whether this attempt is a hedge (a backup sent while another one runs). */
  boolean isHedge();

  /** Returns the endpoint the balancer picked for this attempt. */
  Endpoint endpoint();

  /**
   * Returns the classification of the attempt's outcome, or {@code null} while it runs or when
   * it was cancelled because another attempt answered first.
   */
  Classification classification();
}
