/**
 * A discrete-event simulator of client-side load balancing: virtual time, seeded randomness, and
 * the real lb-core balancers (created with {@link dev.ballast.core.Algorithm#create}) fed through
 * an injected {@link dev.ballast.core.Ticker} that reads virtual time. Run it with {@code
 * ./ballast simulate --help}; {@link dev.ballast.sim.Simulate} is the entry point.
 *
 * <p>Arguments and return values are non-null unless a method says otherwise.
 */
package dev.ballast.sim;
