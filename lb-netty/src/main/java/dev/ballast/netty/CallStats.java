package dev.ballast.netty;

/**
 * Counts of a client's calls since it was built, for dashboards, tests and the demo.
 *
 * @param calls calls started
 * @param retries retries sent (attempts after the first, hedges excluded)
 * @param hedges hedges sent
 * @param hedgesWon hedges whose answer ended their call
 */
public record CallStats(long calls, long retries, long hedges, long hedgesWon) {}
