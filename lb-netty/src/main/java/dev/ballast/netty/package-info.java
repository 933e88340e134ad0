/**
 * The client stack over Netty: {@link dev.ballast.netty.BallastClient}, made of small modules in
 * one order around one per-call context ({@link dev.ballast.netty.CallContext}, {@link
 * dev.ballast.netty.AttemptContext}): call and attempt {@link dev.ballast.netty.Filter}s, the
 * deadline, retries under a {@link dev.ballast.netty.retry.RetryPolicy}, {@link
 * dev.ballast.netty.retry.Hedging}, an lb-core balancer, the {@link
 * dev.ballast.netty.ResponseClassifier} that decides what each attempt's outcome is before the
 * balancer, outlier detection and metrics hear of it, and a {@link
 * dev.ballast.netty.internal.ConnectionPool} per endpoint; and the typed failures it reports, all
 * subclasses of {@link dev.ballast.netty.error.BallastException}.
 */
package dev.ballast.netty;
