/**
 * The client over Netty, as its user sees it: {@link dev.ballast.netty.BallastClient} and its
 * builder's settings ({@link dev.ballast.netty.EndpointSettings}, {@link
 * dev.ballast.netty.ClientSettings}), the per-call options and contexts ({@link
 * dev.ballast.netty.CallOptions}, {@link dev.ballast.netty.CallContext}, {@link
 * dev.ballast.netty.AttemptContext}), call and attempt {@link dev.ballast.netty.Filter}s, the
 * {@link dev.ballast.netty.ResponseClassifier}, and the chain of modules a call goes down and
 * comes back up ({@link dev.ballast.netty.ModuleOrder}, {@link dev.ballast.netty.Role}, {@link
 * dev.ballast.netty.AttemptModule}). Features have their packages: {@code retry} (retries,
 * budget, backoff, hedging), {@code pool}, {@code outlier}, {@code error} (the typed failures,
 * all subclasses of {@link dev.ballast.netty.error.BallastException}), {@code http}, {@code
 * framed}; the engine is in {@code internal}.
 */
package dev.ballast.netty;
