package dev.ballast.core.log;

import dev.ballast.core.Ticker;
import java.lang.System.Logger.Level;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Objects;

/**
 * Logs a balancer's state changes (an ejection, a failed or passed check, a source down or back,
 * a rejected update, a zone's spill, a level's panic) naming the client (its subject), the
 * endpoint and the cause, once per change and rate-limited, so that a flapping endpoint or a
 * hostile source cannot flood the log; nothing is logged per call. The lines go to the {@code
 * System.Logger} {@value #LOGGER} (java.util.logging unless the application bridges it, e.g.
 * SLF4J's {@code slf4j-jdk-platform-logging}).
 *
 * <p>Each kind of change of a client has a token bucket: {@value #BURST} lines at once, then one
 * more per {@value #REFILL_SECONDS} seconds; the changes above it are counted, and the next line
 * logged of that kind says how many were left out ({@code (12 more ejection changes
 * suppressed)}). Over t seconds a kind logs at most {@code BURST + t / REFILL_SECONDS} lines,
 * whatever the rate of changes. Thread-safe; a change takes the log's monitor, never a call.
 */
public final class StateChangeLog {

  /** The logger's name. */
  public static final String LOGGER = "dev.ballast.state";

  /** Lines a kind may log at once. */
  public static final int BURST = 10;

  /** Seconds for a kind to earn one more line. */
  public static final int REFILL_SECONDS = 1;

  /** The kinds of change, each limited on its own. */
  public enum Kind {
    /** Outlier detection ejected or reinstated an endpoint. */
    EJECTION,
    /** An endpoint failed or passed its active check. */
    HEALTH_CHECK,
    /** An endpoint source went down or came back. */
    SOURCE,
    /** An update, or an entry of one, was rejected. */
    REJECTED_UPDATE,
    /** The caller's zone started or stopped spilling calls to other zones. */
    ZONE,
    /** A priority level entered or left panic. */
    PANIC;

    @Override
    public String toString() {
      return name().toLowerCase(Locale.ROOT).replace('_', ' ');
    }
  }

  private final String subject;
  private final System.Logger logger;
  private final Ticker ticker;
  private final EnumMap<Kind, Bucket> buckets = new EnumMap<>(Kind.class);

  private static final class Bucket {
    double tokens = BURST;
    long refilledAt;
    long suppressed;
  }

  /**
   * Creates a log.
   *
   * @param subject what changes, at the head of every line: {@code client orders}
   * @param logger where the lines go ({@code System.getLogger(LOGGER)} in production)
   * @param ticker the clock of the buckets
   */
  public StateChangeLog(String subject, System.Logger logger, Ticker ticker) {
    this.subject = Objects.requireNonNull(subject, "subject");
    this.logger = Objects.requireNonNull(logger, "logger");
    this.ticker = Objects.requireNonNull(ticker, "ticker");
    long now = ticker.nanoTime();
    for (Kind k : Kind.values()) {
      Bucket b = new Bucket();
      b.refilledAt = now;
      buckets.put(k, b);
    }
  }

  /** Returns a log to {@value #LOGGER} on this clock, e.g. {@code of("client orders", t)}. */
  public static StateChangeLog of(String subject, Ticker ticker) {
    return new StateChangeLog(subject, System.getLogger(LOGGER), ticker);
  }

  /**
   * Logs one change, {@code <subject>: <message>}, unless its kind is over its rate; then
   * counts it for the next line of the kind. Returns whether it was logged.
   */
  public boolean log(Kind kind, Level level, String message) {
    long suppressed;
    synchronized (this) {
      Bucket b = buckets.get(kind);
      long now = ticker.nanoTime();
      b.tokens = Math.min(BURST,
          b.tokens + (now - b.refilledAt) / (REFILL_SECONDS * 1e9));
      b.refilledAt = now;
      if (b.tokens < 1) {
        b.suppressed++;
        return false;
      }
      b.tokens--;
      suppressed = b.suppressed;
      b.suppressed = 0;
    }
    if (logger.isLoggable(level)) {
      logger.log(level, subject + ": " + message + (suppressed == 0 ? ""
          : " (" + suppressed + " more " + kind + " changes suppressed)"));
    }
    return true;
  }
}
