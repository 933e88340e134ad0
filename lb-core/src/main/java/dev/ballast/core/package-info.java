/**
 * Ballast's load-balancing core: {@link dev.ballast.core.Endpoint endpoints}, {@link
 * dev.ballast.core.Node nodes} with their live load state, and the {@link
 * dev.ballast.core.Balancer balancers} that pick among them, chosen by {@link
 * dev.ballast.core.Algorithm name}; the algorithms themselves are in their families' packages
 * ({@code roundrobin}, {@code loadaware}, {@code hash}, {@code aperture}), written on {@code
 * engine}. The algorithm classes still named here are deprecated aliases of the moved ones, for
 * one version.
 *
 * <p>Everything here is free of Netty, gRPC, Spring and Micrometer. Arguments and return values
 * are non-null unless a method says otherwise. Picks are lock-free (except the nginx SWRR
 * baseline, which is faithful to nginx and serialises its O(N) loop) and allocate nothing in
 * steady state; time and randomness are injected through {@link dev.ballast.core.BalancerConfig}.
 */
package dev.ballast.core;
