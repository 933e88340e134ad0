/**
 * Logging of state changes ({@link dev.ballast.core.log.StateChangeLog}): once per change,
 * rate-limited per subject and kind, never per call.
 *
 * <p>Arguments and return values are non-null unless a method says otherwise.
 */
package dev.ballast.core.log;
