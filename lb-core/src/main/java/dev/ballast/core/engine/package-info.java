/**
 * The engine lb-core's balancers are written on, open to a team's own: {@link
 * dev.ballast.core.engine.AbstractBalancer} (membership, updates, slow start, availability and
 * panic picks, weights checked), the immutable {@link dev.ballast.core.engine.Snapshot} a pick
 * reads, the {@link dev.ballast.core.engine.LoadMetric} that makes a balancer's nodes ({@link
 * dev.ballast.core.engine.EngineNode} and its subclasses, which keep an algorithm's per-node state
 * as Finagle's balancers define their nodes), and the simpler {@link
 * dev.ballast.core.engine.Distributor} (and {@link dev.ballast.core.engine.KeyedDistributor} for
 * a policy that picks by key). Not yet stable: its protected members may change between
 * versions. The algorithms are in their families' packages ({@code roundrobin}, {@code
 * loadaware}, {@code hash}, {@code aperture}); users choose them by name ({@link
 * dev.ballast.core.policy.PolicyRegistry}).
 */
package dev.ballast.core.engine;
