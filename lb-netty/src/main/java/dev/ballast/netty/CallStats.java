package dev.ballast.netty;

import dev.ballast.netty.error.RequestRefusedException;

/**
 * Counts of a client's calls since it was built, for dashboards, tests and the demo.
 *
 * @param calls calls started
 * @param retries retries sent: attempts after the first, hedges excluded, counting both the
 *     retries the policy allowed and the free re-sends of requests a server refused unprocessed
 *     ({@link RequestRefusedException}, e.g. an HTTP/2 stream refused or after a GOAWAY), which
 *     draw nothing from the retry budget
 * @param hedges hedges sent
 * @param hedgesWon hedges whose answer ended their call
 */
public record CallStats(long calls, long retries, long hedges, long hedgesWon) {}
