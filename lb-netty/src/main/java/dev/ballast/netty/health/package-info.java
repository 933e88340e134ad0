/**
 * Active health checks of a {@link dev.ballast.netty.BallastClient}'s endpoints: {@link
 * dev.ballast.netty.health.HealthCheck} holds the settings (an HTTP path, or a framed ping, on
 * lb-core's {@link dev.ballast.core.health.HealthChecker}); the engine's adapters live in {@code
 * internal}.
 *
 * <p>Arguments and return values are non-null unless a method says otherwise.
 */
package dev.ballast.netty.health;
