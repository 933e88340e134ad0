package dev.ballast.core;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Objects;

/**
 * One endpoint plus its live state and the thing being balanced ({@code T}: a connection pool,
 * a gRPC subchannel, a simulated server).
 *
 * <p>A node is created by a {@link Balancer} and survives every update that keeps its
 * {@linkplain Endpoint#address() address}, so its load state (pending requests, latency
 * estimate) is kept when weights or labels change.
 *
 * <p>Protocol: every {@link Balancer#pick()} that returns this node counts one pending request
 * ({@link Balancer#pickUncounted()} does not: its caller counts with {@link #start()} when it
 * sends); the caller ends each counted request exactly once, with {@link #complete(long,
 * boolean)} or {@link #completeSince(long, boolean)} when the request ran, or {@link #cancel()}
 * when it was never sent. The layer below reports health with {@link
 * #setAvailability(Availability)}, checks and outlier detection with {@link #setHealth} and
 * {@link #setEjected}. All methods are thread-safe and allocation-free; all are lock-free but
 * the two verdicts, which take the node's monitor to combine them (they change rarely; picks
 * and completions never take it).
 *
 * <p>A node holds what every balancer shares; an algorithm's own per-node state (peak EWMA's
 * estimate and probes, SWRR's effective weight, a server's reported load) is a subclass that
 * the balancer's load metric makes, so an algorithm's fields are in its nodes only. Nodes are
 * made by balancers ({@link ChildBalancer#newNode}); a balancer's node class extends {@link
 * dev.ballast.core.engine.EngineNode}, and a balancer refuses nodes made for another kind of
 * balancer.
 *
 * @param <T> the thing being balanced
 */
public abstract class Node<T> {

  private static final VarHandle PENDING;

  static {
    try {
      PENDING = MethodHandles.lookup().findVarHandle(Node.class, "pending", int.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  // What every balancer shares. An algorithm's own per-node state (peak EWMA's estimate, SWRR's
  // effective weight, a server's reported load) lives in the node class its load metric makes
  // (LoadMetric#newNode), as each Finagle balancer defines its own node, and overrides the hooks
  // below; a plain node (round robin, least loaded, ...) keeps nothing more.

  // Requests picked and not yet completed or cancelled.
  private volatile int pending;

  private final String address;
  private final T value;
  private volatile Endpoint endpoint;
  private volatile Availability availability = Availability.OPEN;
  // what an active check says, and whether outlier detection ejected the node; the endpoint's
  // own health is read with them
  private volatile Health checked = Health.HEALTHY;
  private volatile boolean ejected;
  // the worst of the three, kept so that availability() reads one field more, not three
  private volatile Health health;
  // told when a verdict changes the node's health (a composite's tables read it); may be null
  private final Runnable healthListener;
  /**
   * Makes a node of an endpoint: for the engine's {@link dev.ballast.core.engine.EngineNode},
   * which every balancer's node class extends (the engine refuses other subclasses).
   *
   * @param healthListener told when a verdict changes the node's health; may be null
   */
  protected Node(Endpoint endpoint, T value, Runnable healthListener) {
    this.healthListener = healthListener;
    this.endpoint = Objects.requireNonNull(endpoint, "endpoint");
    this.address = endpoint.address();
    this.value = value;
    this.health = endpoint.health();
  }

  /** Returns the endpoint as of the latest update (weight and labels may change). */
  public final Endpoint endpoint() {
    return endpoint;
  }

  /** Returns the endpoint's address, this node's identity. */
  public final String address() {
    return address;
  }

  /** Returns the endpoint's current weight. */
  public final int weight() {
    return endpoint.weight();
  }

  /** Returns the thing being balanced, as made by the value factory of the update. */
  public final T value() {
    return value;
  }

  /**
   * Returns the availability last reported by the layer below ({@link Availability#OPEN} at
   * first), or {@link Availability#CLOSED} while the node is {@link Health#UNHEALTHY}.
   */
  public final Availability availability() {
    return health == Health.UNHEALTHY ? Availability.CLOSED : availability;
  }

  /**
   * Returns the node's health: the worst of its endpoint's {@link Endpoint#health()} (what the
   * source says), the last verdict given to {@link #setHealth}, and {@link Health#UNHEALTHY}
   * while {@link #setEjected ejected}; healthy by default.
   */
  public final Health health() {
    return health;
  }

  /**
   * Gives the verdict of an active check; takes effect on the next pick. The endpoint's own
   * health and an ejection still count: the node is the worst of them. When the node's health
   * changes, a composite balancer holding it (priorities and localities) is told, and makes its
   * tables again at its next pick; a repeated verdict costs nothing.
   */
  public final void setHealth(Health verdict) {
    checked = Objects.requireNonNull(verdict, "health");
    recomputeHealth();
  }

  /**
   * Gives outlier detection's verdict; not ejected by default. An ejected node is
   * {@link Health#UNHEALTHY} until reinstated: closed to every algorithm and, as Envoy counts
   * ejected hosts, out of its priority's and zone's healthy count, so that their share moves
   * to the others. Kept apart from {@link #setHealth}, so that a passing active check does not
   * reinstate an ejected node, nor a reinstatement heal a node its check found down.
   */
  public final void setEjected(boolean ejected) {
    this.ejected = ejected;
    recomputeHealth();
  }

  /** Returns whether outlier detection has ejected the node ({@link #setEjected}). */
  public final boolean isEjected() {
    return ejected;
  }

  /** Returns the last verdict of an active check ({@link #setHealth}); healthy by default. */
  public final Health checkedHealth() {
    return checked;
  }

  // Verdicts change rarely and may come from two threads (a checker, outlier detection): the
  // lock keeps the cached worst-of from missing one of them. Picks never take it.
  private void recomputeHealth() {
    Health before;
    Health after;
    synchronized (this) {
      before = health;
      after = worstOf(endpoint);
      health = after;
    }
    if (after != before && healthListener != null) {
      healthListener.run();
    }
  }

  private Health worstOf(Endpoint e) {
    return e.health().worst(checked).worst(ejected ? Health.UNHEALTHY : Health.HEALTHY);
  }

  /** Reports availability from the layer below; takes effect on the next pick. */
  public final void setAvailability(Availability availability) {
    this.availability = Objects.requireNonNull(availability, "availability");
  }

  /** Returns how many picked requests have not completed yet. */
  public final int pending() {
    return pending;
  }

  /**
   * Returns the peak-EWMA RTT estimate in nanoseconds, decayed to now, or {@code -1} when this
   * node's balancer does not track latency.
   */
  public final double rttEstimateNanos() {
    return rttEstimate();
  }

  /**
   * Ends one picked request that ran: releases its pending slot and feeds the balancer's load
   * metric. A negative latency is clamped to 0; more completions than picks never drive the
   * pending count below 0. The metric is fed before the slot is released, so a reader that sees
   * the pending count drop also sees the sample.
   *
   * @param latencyNanos how long the request took, in nanoseconds
   * @param success whether it succeeded (a failure lowers SWRR's effective weight)
   */
  public final void complete(long latencyNanos, boolean success) {
    onComplete(latencyNanos < 0 ? 0 : latencyNanos, success);
    release();
  }

  /**
   * Ends one picked request that ran, started at {@code startNanos} on the balancer's {@link
   * BalancerConfig#ticker() ticker}: as {@link #complete(long, boolean)}, but a metric that
   * times requests (peak EWMA) reads the clock once for both the latency and its own stamp,
   * where a caller timing the request itself and calling {@code complete} makes two readings at
   * the end. Other metrics read no clock.
   *
   * @param startNanos the ticker's reading when the request was sent
   * @param success whether it succeeded
   */
  public final void completeSince(long startNanos, boolean success) {
    onCompleteSince(startNanos, success);
    release();
  }

  /**
   * Gives the node its server's latest load report (an ORCA report, an {@code
   * endpoint-load-metrics} header); read by the balancers that {@linkplain #readsReports() read
   * reports} ({@code weighted_round_robin}, {@code p2c_utilization}), ignored by the other
   * balancers. Never throws for bad values: the report
   * dropped them already ({@link dev.ballast.core.load.LoadReport#of}) and the balancer counts
   * them.
   */
  public final void reportLoad(dev.ballast.core.load.LoadReport report) {
    onReport(Objects.requireNonNull(report, "report"));
  }

  /**
   * Returns whether this node's balancer reads load reports, so that a caller parses a server's
   * report only when it counts ({@code weighted_round_robin}, {@code p2c_utilization}).
   */
  public final boolean readsReports() {
    return takesReports();
  }

  /** Ends one picked request that was never sent: releases its pending slot only. */
  public final void cancel() {
    onCancel();
    release();
  }

  /**
   * Counts one pending request on this node: a balancer's {@link Balancer#pick()} does, and the
   * caller of {@link Balancer#pickUncounted()} when the request is really sent; end it like a
   * picked one.
   */
  public final void start() {
    PENDING.getAndAdd(this, 1);
    onAcquire();
  }

  @Override
  public final String toString() {
    return "Node{" + endpoint + ", " + availability() + ", pending=" + pending + "}";
  }

  // --- the pending count and the endpoint, kept for the balancer that made the node ---

  private void release() {
    if ((int) PENDING.getAndAdd(this, -1) <= 0) {
      PENDING.getAndAdd(this, 1); // more ends than picks: undo, never below 0 for long
      return;
    }
    onRelease();
  }

  /**
   * Gives the node its endpoint as of an update (same address; weight and labels may change):
   * for the balancer that made it. A weight change calls {@link #weightChanged}.
   */
  protected final void updateEndpoint(Endpoint e) {
    if (!e.address().equals(address)) {
      throw new IllegalArgumentException("endpoint " + e.address() + " renews node " + address
          + " (expected: the same address)");
    }
    Endpoint old = endpoint;
    endpoint = e;
    synchronized (this) {
      health = worstOf(e);
    }
    if (old.weight() != e.weight()) {
      weightChanged(e.weight());
    }
  }

  // --- hooks for an algorithm's own node state, overridden by its node class; no-ops here ---

  /** Called when an update changes the endpoint's weight. */
  protected void weightChanged(int weight) {}

  /** Called before a completed request's pending slot is released; latency clamped to 0+. */
  protected void onComplete(long latencyNanos, boolean success) {}

  /**
   * A completion given its start on the balancer's ticker: only a node that times requests
   * reads a clock; others take it as {@link #onComplete} with no latency.
   */
  protected void onCompleteSince(long startNanos, boolean success) {
    onComplete(0, success);
  }

  /** Called when a picked request is cancelled, before its pending slot is released. */
  protected void onCancel() {}

  /** Called after a pick counted a pending request. */
  protected void onAcquire() {}

  /** Called after a completion or cancellation released a pending request. */
  protected void onRelease() {}

  /** A server's load report; ignored unless {@link #takesReports()}. */
  protected void onReport(dev.ballast.core.load.LoadReport report) {}

  /** The latency estimate in nanoseconds, decayed to now; -1 when not tracked. */
  protected double rttEstimate() {
    return -1;
  }

  /** Whether this node's balancer reads load reports ({@link #readsReports()}). */
  protected boolean takesReports() {
    return false;
  }
}
