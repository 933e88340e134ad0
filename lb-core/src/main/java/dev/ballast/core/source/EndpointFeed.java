package dev.ballast.core.source;

import dev.ballast.core.Endpoint;
import dev.ballast.core.Ticker;
import dev.ballast.core.log.StateChangeLog;
import dev.ballast.core.status.SourceStatus;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

/**
 * Applies what an {@link EndpointSource} pushes to an {@link EndpointSink}: a balancer, a
 * subset selector, a client.
 *
 * <ul>
 *   <li><b>Entry by entry.</b> Each entry is parsed on its own: a malformed one, one repeating
 *       another's address, or one whose weight would take the total over {@link
 *       Integer#MAX_VALUE} is skipped, logged once and counted ({@link #entriesRejected()});
 *       the rest are applied. Skipped weights are weighed again after every push, so a set
 *       that fits is applied whole whatever the order of its entries.
 *   <li><b>Changes, not sets.</b> Pushes become a change of endpoints (added, reweighted,
 *       relabelled, removed); a sink that {@linkplain EndpointSink#takesDeltas takes deltas}
 *       gets just that, others the whole set. A source's full resync that changes nothing
 *       applies nothing.
 *   <li><b>Bursts coalesce.</b> A push after a quiet spell is applied at once; pushes arriving
 *       within the {@linkplain Builder#window window} (100 ms by default) after an apply are
 *       merged and applied together when it ends (as a debounce with a leading edge), so a
 *       registry storm costs one update per window while a lone change waits for nothing.
 *   <li><b>Outages keep the last good set.</b> When the source fails, nothing is removed:
 *       calls keep going to the endpoints known last, {@link #isUp()} turns false and {@link
 *       #stalenessSeconds()} grows until the source is back.
 *   <li><b>An empty listing keeps the last good set.</b> A source that lists no usable entry
 *       after it listed some (a registry restarted on an empty data directory, a wiped prefix)
 *       is not applied: the sink keeps its endpoints, a warning is logged once, and the next
 *       listing with an endpoint is applied in full. Only a source is distrusted so: a sink's
 *       own {@code update} with an empty list (a client's {@code updateEndpoints(List.of())})
 *       still empties it.
 * </ul>
 *
 * <p>Applies run on the {@linkplain Builder#scheduler scheduler} (by default one daemon thread
 * shared by every feed), never on the source's threads: a source calling from a Netty event
 * loop is never held up by a large update.
 *
 * <pre>{@code
 * SubsetSelector<Pool> selector = ...;
 * EndpointSource etcd = EndpointSourceProvider.open("etcd://127.0.0.1:2379/services/orders/");
 * EndpointFeed feed = EndpointFeed.builder(etcd)
 *     .start(EndpointSink.of(selector, Pool::new, node -> node.value().close()));
 * ...
 * feed.close(); // closes the source
 * }</pre>
 */
public final class EndpointFeed implements AutoCloseable {

  private static final System.Logger LOG = System.getLogger(EndpointFeed.class.getName());

  private final EndpointSource source;
  private final EndpointSink sink;
  private final long windowNanos;
  private final Ticker ticker;
  private final ScheduledExecutorService scheduler;
  private final EntryTable table;
  private final StateChangeLog states;
  private final LongAdder updates = new LongAdder();
  private final LongAdder rejections = new LongAdder();
  private final Object lock = new Object();

  // guarded by lock: what arrived since the last apply
  private final Pushes pending = new Pushes();
  private boolean scheduled;
  private long lastApplyNanos;
  private boolean everApplied;
  private boolean closed;

  private volatile boolean keepingLastSet; // written under table: an empty listing ignored
  private volatile boolean up;
  private volatile long downSinceNanos;
  private volatile int endpointCount;
  private volatile Instant lastUpdate;

  private EndpointFeed(Builder b, EndpointSink sink) {
    this.source = b.source;
    this.sink = sink;
    this.windowNanos = b.window.toNanos();
    this.ticker = b.ticker;
    this.scheduler = b.scheduler != null ? b.scheduler : SharedScheduler.INSTANCE;
    this.table = new EntryTable(source::parse, this::rejected);
    this.states = b.states != null ? b.states : StateChangeLog.of("feed", b.ticker);
    this.downSinceNanos = ticker.nanoTime();
  }

  /** Returns a builder of a feed from the source. */
  public static Builder builder(EndpointSource source) {
    return new Builder(source);
  }

  /** Returns the source's name. */
  public String name() {
    return source.name();
  }

  /** Returns the source (for {@link EndpointSource#refresh} after connection failures). */
  public EndpointSource source() {
    return source;
  }

  /** Asks the source for an early re-read ({@link EndpointSource#refresh}). */
  public void refresh() {
    source.refresh();
  }

  /** Returns how many endpoints the sink holds from this feed. */
  public int endpointCount() {
    return endpointCount;
  }

  /** Returns how many changes were applied to the sink. */
  public long updatesApplied() {
    return updates.sum();
  }

  /**
   * Returns how many entries were skipped (malformed, duplicate address, weight overflow, or
   * refused by the sink); an entry skipped again with the same value is counted once.
   */
  public long entriesRejected() {
    return rejections.sum();
  }

  /**
   * Returns whether the source lists no endpoint now and the sink keeps the last set it had (an
   * empty listing is not applied), until the source lists one again: it turns false just after
   * the sink has taken that listing (as {@link #endpointCount()} moves just after).
   */
  public boolean keepsLastSet() {
    return keepingLastSet;
  }

  /** Returns whether the source is connected and current (false until its first push). */
  public boolean isUp() {
    return up;
  }

  /**
   * Returns the seconds since the source was last known current: 0 while it is up, growing
   * while it is down (since its start, before its first push).
   */
  public double stalenessSeconds() {
    return up ? 0 : (ticker.nanoTime() - downSinceNanos) / 1e9;
  }

  /** Returns the feed's state now: up or down, its last update, its counts. */
  public SourceStatus status() {
    return new SourceStatus(source.name(), up, lastUpdate, endpointCount, updates.sum(),
        rejections.sum(), stalenessSeconds());
  }

  /** Stops the source; the sink keeps the endpoints it has. Idempotent. */
  @Override
  public void close() {
    synchronized (lock) {
      if (closed) {
        return;
      }
      closed = true;
      pending.clear();
    }
    source.close();
  }

  @Override
  public String toString() {
    return "EndpointFeed[" + source.name() + ", " + endpointCount + " endpoints, "
        + (up ? "up" : "down") + "]";
  }

  private void start() {
    source.start(new EndpointSource.Listener() {
      @Override
      public void onEntries(Map<String, String> entries) {
        synchronized (lock) {
          pending.entries(entries);
          pushed();
        }
      }

      @Override
      public void onChanges(Map<String, String> upserts, Collection<String> removedKeys) {
        synchronized (lock) {
          pending.changes(upserts, removedKeys);
          pushed();
        }
      }

      @Override
      public void onFailure(Throwable cause) {
        if (up) {
          downSinceNanos = ticker.nanoTime();
          up = false;
          states.log(StateChangeLog.Kind.SOURCE, System.Logger.Level.WARNING, "source "
              + source.name() + " is down; keeping its last " + endpointCount + " endpoints: "
              + cause);
        }
        scheduler.schedule(() -> failed(cause), 0, TimeUnit.NANOSECONDS);
      }
    });
  }

  // lock held
  private void pushed() {
    if (closed) {
      return;
    }
    if (!up) {
      up = true;
      if (everApplied) {
        states.log(StateChangeLog.Kind.SOURCE, System.Logger.Level.INFO,
            "source " + source.name() + " is back");
      }
    }
    if (scheduled) {
      return;
    }
    scheduled = true;
    long wait = everApplied ? lastApplyNanos + windowNanos - ticker.nanoTime() : 0;
    scheduler.schedule(this::applyPending, Math.max(0, wait), TimeUnit.NANOSECONDS);
  }

  private void failed(Throwable cause) {
    synchronized (table) { // one sink call at a time, as applyPending
      synchronized (lock) {
        if (closed) {
          return;
        }
      }
      try {
        sink.sourceFailed(cause);
      } catch (RuntimeException e) {
        LOG.log(System.Logger.Level.WARNING, () -> "source " + source.name()
            + ": the sink failed on the source's failure: " + e);
      }
    }
  }

  private void applyPending() {
    try {
      apply();
    } catch (RuntimeException | Error e) { // never swallowed by the scheduler
      LOG.log(System.Logger.Level.ERROR, () -> "source " + source.name()
          + ": update failed, previous endpoints kept: " + e, e);
    }
  }

  private void apply() {
    synchronized (table) { // one apply at a time, even on a scheduler with many threads
      Map<String, String> all;
      Map<String, String> changes;
      synchronized (lock) {
        scheduled = false;
        if (closed) {
          return;
        }
        everApplied = true;
        lastApplyNanos = ticker.nanoTime();
        all = pending.takeAll();
        changes = pending.takeChanges();
      }
      if (all != null) {
        table.reset(all);
      }
      changes.forEach(table::put);
      table.retryOverweight();
      if (!table.hasChanges()) {
        return;
      }
      if (table.acceptedSize() == 0 && table.appliedSize() > 0) {
        keepOnEmptyListing();
        return; // left pending: the next push that lists something is applied in full
      }
      EntryTable.Delta delta = table.delta();
      if (delta.isEmpty()) {
        table.commit(delta);
        return;
      }
      try {
        if (sink.takesDeltas() && table.appliedSize() > 0) {
          sink.apply(delta.upserts, delta.removed);
        } else {
          sink.update(table.after(delta));
        }
      } catch (RuntimeException | Error e) {
        // the sink kept its previous set; the change stays pending for the next push
        rejections.add(delta.upserts.size());
        states.log(StateChangeLog.Kind.REJECTED_UPDATE, System.Logger.Level.WARNING, "source "
            + source.name() + ": " + delta.size() + " changes refused, previous endpoints kept: "
            + e.getMessage());
        return;
      }
      table.commit(delta);
      endpointCount = table.appliedSize();
      lastUpdate = Instant.now();
      updates.increment();
      keepingLastSet = false;
    }
  }

  // A source listing nothing is distrusted: a registry restarted on an empty data directory, a
  // wiped prefix or a lost session lists nothing while every server is still up, and applying it
  // would fail every call. The sink keeps its set; the first such listing is logged.
  private void keepOnEmptyListing() {
    if (!keepingLastSet) {
      keepingLastSet = true;
      states.log(StateChangeLog.Kind.SOURCE, System.Logger.Level.WARNING, "source "
          + source.name() + " lists no endpoint; keeping its last " + table.appliedSize()
          + " until it lists one");
    }
  }

  private void rejected(String key, String value, String reason) {
    rejections.increment();
    states.log(StateChangeLog.Kind.REJECTED_UPDATE, System.Logger.Level.WARNING, "source "
        + source.name() + ": entry " + key
        + " skipped (" + (reason.length() <= 500 ? reason : reason.substring(0, 500) + "...")
        + "): " + (value.length() <= 200 ? "\"" + value + "\""
            : "\"" + value.substring(0, 200) + "...\" (" + value.length() + " characters)"));
  }

  /**
   * Builds an {@link EndpointFeed}. Defaults: a 100 ms window, the system ticker, a shared
   * daemon scheduler thread.
   */
  public static final class Builder {

    private final EndpointSource source;
    private Duration window = Duration.ofMillis(100);
    private Ticker ticker = Ticker.system();
    private ScheduledExecutorService scheduler;
    private StateChangeLog states;

    private Builder(EndpointSource source) {
      this.source = Objects.requireNonNull(source, "source");
    }

    /**
     * Sets how long after an apply further pushes are gathered into one; default 100 ms, 0
     * applies every push on its own.
     *
     * @throws IllegalArgumentException if negative
     */
    public Builder window(Duration window) {
      Objects.requireNonNull(window, "window");
      if (window.isNegative()) {
        throw new IllegalArgumentException("window: " + window + " (expected: >= 0)");
      }
      this.window = window;
      return this;
    }

    /** Sets the time source for windows and staleness; default {@link Ticker#system()}. */
    public Builder ticker(Ticker ticker) {
      this.ticker = Objects.requireNonNull(ticker, "ticker");
      return this;
    }

    /**
     * Sets where applies run; default one daemon thread shared by every feed. The feed never
     * shuts it down.
     */
    public Builder scheduler(ScheduledExecutorService scheduler) {
      this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
      return this;
    }

    /**
     * Sets where the source's state changes are logged (down, back, entries and updates
     * rejected), rate-limited; default a {@link StateChangeLog} of subject {@code feed} on the
     * feed's ticker (a client gives its own, {@code client <name>}).
     */
    public Builder stateLog(StateChangeLog log) {
      this.states = Objects.requireNonNull(log, "log");
      return this;
    }

    /** Builds the feed and starts the source, which pushes to the sink from now on. */
    public EndpointFeed start(EndpointSink sink) {
      Objects.requireNonNull(sink, "sink");
      EndpointFeed feed = new EndpointFeed(this, sink);
      feed.start();
      return feed;
    }
  }
}
