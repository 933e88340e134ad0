/**
 * Trying a call again: the {@link dev.ballast.netty.retry.RetryPolicy} (what is retryable, how
 * many attempts, the {@link dev.ballast.netty.retry.Backoff}), the {@link
 * dev.ballast.netty.retry.RetryBudget} that keeps retries from overloading a service, and
 * {@link dev.ballast.netty.retry.Hedging} (backup requests).
 */
package dev.ballast.netty.retry;
