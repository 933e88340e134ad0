/**
 * Live runs over real servers on 127.0.0.1: {@link dev.ballast.bench.live.LiveCapacity}, the
 * balancers over servers of unequal capacity that report their own utilization.
 */
package dev.ballast.bench.live;
