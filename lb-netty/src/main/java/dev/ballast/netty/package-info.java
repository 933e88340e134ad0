/**
 * The client stack over Netty: {@link dev.ballast.netty.Service} and {@link
 * dev.ballast.netty.Filter}, {@link dev.ballast.netty.BallastClient} (deadline, retries under a
 * {@link dev.ballast.netty.RetryBudget}, an lb-core balancer, outlier detection and a {@link
 * dev.ballast.netty.ConnectionPool} per endpoint), and the typed failures it reports, all
 * subclasses of {@link dev.ballast.netty.BallastException}.
 */
package dev.ballast.netty;
