/**
 * Active health checks: {@link dev.ballast.core.health.HealthChecker} checks every node of a set
 * with a {@link dev.ballast.core.health.HealthProbe} (an HTTP path, a framed ping) on one timer,
 * and gives each verdict to the node ({@link dev.ballast.core.Node#setHealth}), which every
 * balancer reads; {@link dev.ballast.core.health.HealthCheckConfig} holds Envoy's settings.
 *
 * <p>Arguments and return values are non-null unless a method says otherwise.
 */
package dev.ballast.core.health;
