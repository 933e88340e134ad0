package dev.ballast.netty;

import java.time.Duration;

/**
 * One call as every module of the client's stack sees it (after Armeria's {@code
 * ClientRequestContext}): the request, the caller's {@link CallOptions}, the deadline, the
 * attempts made so far, and attributes that filters and modules may set for the rest of the
 * call. Each attempt has its own {@link AttemptContext}.
 *
 * <p>Implemented by the client: one per call, thread-safe, valid after the call ends (reads then
 * see its final state).
 *
 * @param <Req> the request type
 */
public interface CallContext<Req> {

  /** Returns the request as the caller gave it (call filters may pass another one down). */
  Req request();

  /** Returns the caller's options ({@link CallOptions#DEFAULT} for {@code call(request)}). */
  CallOptions options();

  /**
   * Returns whether the request may be sent more than once: the caller said so ({@link
   * CallOptions#isIdempotent()}), or the protocol knows (an HTTP method idempotent by RFC 9110,
   * section 9.2.2: GET, HEAD, OPTIONS, TRACE, PUT, DELETE).
   */
  boolean isIdempotent();

  /** Returns the call's timeout: the options' override, else the client's. */
  Duration timeout();

  /** Returns the deadline on the client's ticker, in nanoseconds. */
  long deadlineNanos();

  /** Returns the nanoseconds left until the deadline (negative once it has passed). */
  long remainingNanos();

  /** Returns how many attempts have started so far, hedges included (0 before the first). */
  int attempts();

  /** Returns the value set on this call for {@code key}, else the options' value, else null. */
  <T> T attribute(CallOptions.Key<T> key);

  /** Sets a value for the rest of this call; later modules and filters see it. */
  <T> void setAttribute(CallOptions.Key<T> key, T value);
}
