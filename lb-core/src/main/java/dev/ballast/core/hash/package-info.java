/**
 * The balancers that pick by a request's key: gRPC's ring hash ({@link
 * dev.ballast.core.hash.RingHash}), twemproxy's ketama ({@link dev.ballast.core.hash.Ketama}) and
 * Maglev ({@link dev.ballast.core.hash.Maglev}), with bounded loads. Their settings are {@link
 * dev.ballast.core.HashConfig}'s.
 */
package dev.ballast.core.hash;
