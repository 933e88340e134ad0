/**
 * The balancers that read load: P2C least loaded ({@link
 * dev.ballast.core.loadaware.LeastLoaded}), P2C over peak-EWMA latency ({@link
 * dev.ballast.core.loadaware.P2cPeakEwma}, the default), and those that read servers' load
 * reports, P2C by utilization ({@link dev.ballast.core.loadaware.P2cUtilization}) and gRFC A58's
 * weighted round robin ({@link dev.ballast.core.loadaware.WeightedRoundRobin}), which share the
 * report node and P2C's draw.
 */
package dev.ballast.core.loadaware;
