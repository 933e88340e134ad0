/**
 * Ballast's load-balancing core: {@link dev.ballast.core.Endpoint endpoints}, {@link
 * dev.ballast.core.Node nodes} with their live load state, and the {@link
 * dev.ballast.core.Balancer balancers} that pick among them.
 *
 * <p>Everything here is free of Netty, gRPC, Spring and Micrometer. Arguments and return values
 * are non-null unless a method says otherwise. Picks are lock-free (except the nginx SWRR
 * baseline, which is faithful to nginx and serialises its O(N) loop) and allocate nothing in
 * steady state; time and randomness are injected through {@link dev.ballast.core.BalancerConfig}.
 */
package dev.ballast.core;
