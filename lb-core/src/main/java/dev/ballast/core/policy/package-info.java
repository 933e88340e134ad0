/**
 * Balancing policies as plugins: the SPI ({@link dev.ballast.core.policy.BalancingPolicy}), the
 * registry every front end resolves names through ({@link
 * dev.ballast.core.policy.PolicyRegistry}), a policy chosen with its decoded config ({@link
 * dev.ballast.core.policy.ConfiguredPolicy}) and the distributor a simple policy writes ({@link
 * dev.ballast.core.engine.Distributor}, or {@link dev.ballast.core.engine.KeyedDistributor} to
 * pick by key).
 */
package dev.ballast.core.policy;
