package dev.ballast.core;

/**
 * What the layer below (a connection pool, a gRPC subchannel, an outlier detector) says about a
 * node. Distributors prefer {@link #OPEN} nodes and fall back to the others only in panic mode.
 */
public enum Availability {
  /** Ready to take requests. */
  OPEN,
  /** Usable but not now: connecting, or saturated. Picked only in panic mode. */
  BUSY,
  /** Down: refused, ejected or shut down. Picked only in panic mode, after any busy node. */
  CLOSED
}
