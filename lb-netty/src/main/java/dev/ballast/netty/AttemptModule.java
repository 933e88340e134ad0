package dev.ballast.netty;

/**
 * A module of the caller's own in the client's chain, at attempt level: added by {@link
 * ModuleOrder#addBefore} or {@link ModuleOrder#addAfter} under a {@link Role#of role}, it is
 * entered once per attempt on the way down (after the balancer picked the endpoint) and left once
 * on the way up, with the attempt's response or failure. Above the {@link Role#CLASSIFIER} it
 * also sees the classification. A module that reads something from each answer (a load report in
 * a header, a health verdict) and the endpoint it came from is one of these.
 *
 * <p>It runs on the thread that sends or ends the attempt (an event loop, mostly): it must be
 * quick, must not block, and should allocate nothing. It cannot change the request or the answer
 * (an {@link AttemptFilter} can). An exception it throws is caught: thrown on the way down, it
 * fails the attempt; on the way up, it is ignored, so that every module above still hears the
 * outcome.
 *
 * @param <Req> the request type
 * @param <Rep> the response type
 */
public interface AttemptModule<Req, Rep> {

  /** The attempt goes down past this module; default nothing. */
  default void enter(AttemptContext<Req> attempt) {
  }

  /**
   * The attempt's outcome goes up past this module: the response, or the failure (both null
   * for an attempt cancelled because another one answered first); default nothing.
   */
  default void leave(AttemptContext<Req> attempt, Rep response, Throwable failure) {
  }
}
