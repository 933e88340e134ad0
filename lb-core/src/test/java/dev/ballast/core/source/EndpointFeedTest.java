package dev.ballast.core.source;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.core.Algorithm;
import dev.ballast.core.Balancer;
import dev.ballast.core.BalancerConfig;
import dev.ballast.core.Endpoint;
import dev.ballast.core.Node;
import dev.ballast.core.subset.SubsetSelector;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The feed's validation, coalescing and outage behaviour, on a hand-driven clock and timer. */
class EndpointFeedTest {

  private final AtomicLong now = new AtomicLong(5_000_000_000L);
  private final ManualScheduler scheduler = new ManualScheduler();
  private final TestSource source = new TestSource();
  private final RecordingSink sink = new RecordingSink();

  private EndpointFeed start(EndpointSink target) {
    return EndpointFeed.builder(source).ticker(now::get).scheduler(scheduler).start(target);
  }

  @Test
  void aLonePushIsAppliedAtOnceAndABurstWithinTheWindowBecomesOneDelta() {
    EndpointFeed feed = start(sink);
    source.listener.onEntries(Map.of("a", "10.0.0.1:80", "b", "10.0.0.2:80;weight=2"));
    assertThat(scheduler.delays).containsExactly(0L); // leading edge: no wait
    scheduler.runAll();
    assertThat(sink.calls).containsExactly("update [10.0.0.1:80, 10.0.0.2:80;weight=2]");

    now.addAndGet(10_000_000); // 10 ms later: inside the 100 ms window
    source.listener.onChanges(Map.of("c", "10.0.0.3:80"), List.of());
    source.listener.onChanges(Map.of("b", "10.0.0.2:80;weight=5"), List.of("a"));
    source.listener.onChanges(Map.of("d", "10.0.0.4:80"), List.of("c")); // c came and went
    assertThat(scheduler.delays).containsExactly(0L, 90_000_000L); // one timer, at window end
    now.addAndGet(90_000_000);
    scheduler.runAll();
    assertThat(sink.calls).hasSize(2);
    assertThat(sink.calls.get(1))
        .isEqualTo("apply +[10.0.0.2:80;weight=5, 10.0.0.4:80] -[10.0.0.1:80]");
    assertThat(feed.updatesApplied()).isEqualTo(2);
    assertThat(feed.endpointCount()).isEqualTo(2);

    now.addAndGet(1_000_000_000); // a quiet second: the next push goes at once again
    source.listener.onChanges(Map.of(), List.of("d"));
    assertThat(scheduler.delays.get(2)).isEqualTo(0L);
    scheduler.runAll();
    assertThat(sink.calls.get(2)).isEqualTo("apply +[] -[10.0.0.4:80]");
  }

  @Test
  void aParserFailingWithAnErrorRejectsThatEntryOnly() {
    EndpointSource.Listener[] listener = new EndpointSource.Listener[1];
    EndpointSource hostile = new EndpointSource() {
      @Override
      public void start(Listener l) {
        listener[0] = l;
      }

      @Override
      public Endpoint parse(String key, String value) {
        if (value.startsWith("deep")) {
          throw new StackOverflowError(); // as a recursive reader on hostile nesting
        }
        return Endpoint.parse(value);
      }

      @Override
      public String name() {
        return "hostile";
      }

      @Override
      public void close() {}
    };
    EndpointFeed feed = EndpointFeed.builder(hostile).ticker(now::get).scheduler(scheduler)
        .start(sink);
    listener[0].onEntries(Map.of("a", "10.0.0.1:80", "deep", "deep[[[[", "c", "10.0.0.3:80"));
    scheduler.runAll();
    assertThat(sink.last()).isEqualTo("update [10.0.0.1:80, 10.0.0.3:80]");
    assertThat(feed.entriesRejected()).isEqualTo(1);
    assertThat(feed.isUp()).isTrue();
    feed.close();
  }

  @Test
  void aMalformedEntryIsSkippedLoggedOnceAndCountedWhileTheOthersApply() {
    EndpointFeed feed = start(sink);
    Map<String, String> entries = new LinkedHashMap<>();
    entries.put("a", "10.0.0.1:80");
    entries.put("bad", "10.0.0.2:80;weight=-1");
    entries.put("c", "10.0.0.3:80;zone=b");
    source.listener.onEntries(entries);
    scheduler.runAll();
    assertThat(sink.last()).isEqualTo("update [10.0.0.1:80, 10.0.0.3:80;zone=b]");
    assertThat(feed.entriesRejected()).isEqualTo(1);

    // the same bad value again (a resync) is not counted again; a fixed value is taken
    source.listener.onEntries(entries);
    scheduler.runAll();
    assertThat(feed.entriesRejected()).isEqualTo(1);
    now.addAndGet(1_000_000_000);
    source.listener.onChanges(Map.of("bad", "10.0.0.2:80;weight=4"), List.of());
    scheduler.runAll();
    assertThat(sink.last()).isEqualTo("apply +[10.0.0.2:80;weight=4] -[]");
    assertThat(feed.endpointCount()).isEqualTo(3);
  }

  @Test
  void anEntryRepeatingAnAddressWaitsAndTakesItWhenTheHolderLeaves() {
    EndpointFeed feed = start(sink);
    Map<String, String> entries = new LinkedHashMap<>();
    entries.put("first", "10.0.0.1:80;zone=a");
    entries.put("second", "10.0.0.1:80;zone=b");
    source.listener.onEntries(entries);
    scheduler.runAll();
    assertThat(sink.last()).isEqualTo("update [10.0.0.1:80;zone=a]");
    assertThat(feed.entriesRejected()).isEqualTo(1);

    now.addAndGet(1_000_000_000);
    source.listener.onChanges(Map.of(), List.of("first"));
    scheduler.runAll();
    assertThat(sink.last()).isEqualTo("apply +[10.0.0.1:80;zone=b] -[]");
  }

  @Test
  void aWeightTakingTheTotalOverTheLimitIsSkipped() {
    EndpointFeed feed = start(sink);
    Map<String, String> entries = new LinkedHashMap<>();
    entries.put("a", "10.0.0.1:80;weight=" + (Integer.MAX_VALUE - 10));
    entries.put("b", "10.0.0.2:80;weight=11");
    entries.put("c", "10.0.0.3:80;weight=10");
    source.listener.onEntries(entries);
    scheduler.runAll();
    assertThat(sink.last()).isEqualTo(
        "update [10.0.0.1:80;weight=" + (Integer.MAX_VALUE - 10) + ", 10.0.0.3:80;weight=10]");
    assertThat(feed.entriesRejected()).isEqualTo(1);
  }

  @Test
  void aSkippedWeightIsTakenOnceALaterSetFitsWhateverTheOrderOfItsEntries() {
    int max = Integer.MAX_VALUE;
    int half = (1 << 30) - 2; // two of them: 2^31-4
    // keys.get(i) names 10.0.0.(i + 1): the two orders read the addresses in turn first
    for (List<String> keys : List.of(List.of("a", "b"), List.of("b", "a"))) {
      TestSource src = new TestSource();
      RecordingSink out = new RecordingSink();
      EndpointFeed feed = EndpointFeed.builder(src).ticker(now::get).scheduler(scheduler)
          .window(java.time.Duration.ZERO).start(out);
      src.listener.onEntries(weights(keys, max - 1, max - 1));
      scheduler.runAll();
      assertThat(feed.endpointCount()).isEqualTo(1);

      src.listener.onEntries(weights(keys, half, half));
      scheduler.runAll();
      assertThat(feed.endpointCount()).as("keys " + keys).isEqualTo(2);

      // sent again unchanged, the skipped entry is taken once the other shrinks
      src.listener.onEntries(weights(keys, max - 10, max - 10));
      scheduler.runAll();
      assertThat(feed.endpointCount()).isEqualTo(1);
      boolean firstTaken = out.last().startsWith("apply +[10.0.0.1:80");
      src.listener.onEntries(firstTaken ? weights(keys, 9, max - 10)
          : weights(keys, max - 10, 9));
      scheduler.runAll();
      assertThat(feed.endpointCount()).as("keys " + keys).isEqualTo(2);
      feed.close();
    }
  }

  private static Map<String, String> weights(List<String> keys, int first, int second) {
    return Map.of(keys.get(0), "10.0.0.1:80;weight=" + first,
        keys.get(1), "10.0.0.2:80;weight=" + second);
  }

  @Test
  void anEmptyListingKeepsTheLastSetAndTheNextListingIsAppliedInFull() {
    EndpointFeed feed = start(sink);
    source.listener.onEntries(Map.of("a", "10.0.0.1:80", "b", "10.0.0.2:80"));
    scheduler.runAll();
    now.addAndGet(1_000_000_000);
    source.listener.onEntries(Map.of()); // a registry restarted on an empty data directory
    scheduler.runAll();
    assertThat(sink.calls).containsExactly("update [10.0.0.1:80, 10.0.0.2:80]");
    assertThat(feed.endpointCount()).isEqualTo(2);

    // removals one by one: the last endpoint stays; a listing of nothing usable is empty too
    now.addAndGet(1_000_000_000);
    source.listener.onEntries(Map.of("b", "10.0.0.2:80"));
    scheduler.runAll();
    assertThat(sink.last()).isEqualTo("apply +[] -[10.0.0.1:80]");
    now.addAndGet(1_000_000_000);
    source.listener.onChanges(Map.of("bad", "10.0.0.9:0"), List.of("b"));
    scheduler.runAll();
    assertThat(sink.calls).hasSize(2);
    assertThat(feed.endpointCount()).isEqualTo(1);

    now.addAndGet(1_000_000_000);
    source.listener.onChanges(Map.of("c", "10.0.0.3:80"), List.of());
    scheduler.runAll();
    assertThat(sink.last()).isEqualTo("apply +[10.0.0.3:80] -[10.0.0.2:80]");
    assertThat(feed.endpointCount()).isEqualTo(1);
  }

  @Test
  void aBalancerFedAnEmptyListingKeepsItsNodes() {
    Balancer<String> balancer = Algorithm.VNSWRR.create(
        BalancerConfig.builder().random(new SplittableRandom(1)).build());
    List<String> closed = new ArrayList<>();
    start(EndpointSink.of(balancer, Endpoint::address, n -> closed.add(n.value())));
    source.listener.onEntries(Map.of("a", "10.0.0.1:80", "b", "10.0.0.2:80"));
    scheduler.runAll();
    now.addAndGet(1_000_000_000);
    source.listener.onEntries(Map.of());
    scheduler.runAll();
    assertThat(balancer.nodes()).hasSize(2);
    assertThat(closed).isEmpty();
  }

  @Test
  void theSourcesFailuresReachTheSinkOnTheSchedulerUntilTheFeedCloses() {
    EndpointFeed feed = start(sink);
    source.listener.onFailure(new IllegalStateException("unreachable"));
    assertThat(sink.failures).isEmpty(); // not on the source's thread
    scheduler.runAll();
    assertThat(sink.failures).containsExactly("unreachable");
    assertThat(sink.calls).isEmpty();

    source.listener.onFailure(new IllegalStateException("still unreachable"));
    feed.close();
    scheduler.runAll();
    assertThat(sink.failures).containsExactly("unreachable");
  }

  @Test
  void anOutageKeepsTheEndpointsAndStalenessGrowsUntilTheSourceIsBack() {
    EndpointFeed feed = start(sink);
    assertThat(feed.isUp()).isFalse();
    source.listener.onEntries(Map.of("a", "10.0.0.1:80"));
    scheduler.runAll();
    assertThat(feed.isUp()).isTrue();
    assertThat(feed.stalenessSeconds()).isZero();

    source.listener.onFailure(new IllegalStateException("connection lost"));
    now.addAndGet(3_000_000_000L);
    assertThat(feed.isUp()).isFalse();
    assertThat(feed.stalenessSeconds()).isEqualTo(3.0);
    assertThat(sink.calls).hasSize(1); // nothing removed
    assertThat(feed.endpointCount()).isEqualTo(1);

    // back, with a resync equal to what the sink has: up again, nothing applied
    source.listener.onEntries(Map.of("a", "10.0.0.1:80"));
    scheduler.runAll();
    assertThat(feed.isUp()).isTrue();
    assertThat(feed.stalenessSeconds()).isZero();
    assertThat(sink.calls).hasSize(1);
  }

  @Test
  void aResyncBecomesTheDeltaOfWhatChanged() {
    start(sink);
    source.listener.onEntries(Map.of("a", "10.0.0.1:80", "b", "10.0.0.2:80", "c", "10.0.0.3:80"));
    scheduler.runAll();
    now.addAndGet(1_000_000_000);
    source.listener.onEntries(Map.of("a", "10.0.0.1:80", "b", "10.0.0.2:80;weight=3"));
    scheduler.runAll();
    assertThat(sink.last()).isEqualTo("apply +[10.0.0.2:80;weight=3] -[10.0.0.3:80]");
  }

  @Test
  void aRefusedChangeKeepsThePreviousSetAndIsRetriedWithTheNextPush() {
    EndpointFeed feed = start(sink);
    source.listener.onEntries(Map.of("a", "10.0.0.1:80"));
    scheduler.runAll();
    sink.refuseNext = true;
    now.addAndGet(1_000_000_000);
    source.listener.onChanges(Map.of("b", "10.0.0.2:80"), List.of());
    scheduler.runAll();
    assertThat(feed.entriesRejected()).isEqualTo(1);
    assertThat(feed.endpointCount()).isEqualTo(1);
    now.addAndGet(1_000_000_000);
    source.listener.onChanges(Map.of("c", "10.0.0.3:80"), List.of());
    scheduler.runAll();
    assertThat(sink.last()).startsWith("apply +[").contains("10.0.0.2:80", "10.0.0.3:80");
    assertThat(feed.endpointCount()).isEqualTo(3);
  }

  @Test
  void aClosedFeedAppliesNothingAndClosesItsSource() {
    EndpointFeed feed = start(sink);
    source.listener.onEntries(Map.of("a", "10.0.0.1:80"));
    feed.close();
    scheduler.runAll();
    assertThat(sink.calls).isEmpty();
    assertThat(source.closed).isTrue();
  }

  @Test
  void aSubsetSelectorGetsDeltasAndItsNodesKeepTheirState() {
    SubsetSelector<String> selector = SubsetSelector.<String>builder()
        .selector("zone").algorithm(Algorithm.ROUND_ROBIN)
        .config(BalancerConfig.builder().random(new SplittableRandom(1)).build()).build();
    List<String> closed = new ArrayList<>();
    start(EndpointSink.of(selector, Endpoint::address, n -> closed.add(n.value())));
    source.listener.onEntries(Map.of("a", "10.0.0.1:80;zone=a", "b", "10.0.0.2:80;zone=b"));
    scheduler.runAll();
    Node<String> a = selector.pick(Map.of("zone", "a"));
    now.addAndGet(1_000_000_000);
    source.listener.onChanges(Map.of("c", "10.0.0.3:80;zone=a"), List.of("b"));
    scheduler.runAll();
    assertThat(closed).containsExactly("10.0.0.2:80");
    assertThat(selector.nodes()).extracting(Node::value)
        .containsExactlyInAnyOrder("10.0.0.1:80", "10.0.0.3:80");
    assertThat(selector.nodes().get(0)).isSameAs(a); // the same node, pending count and all
    assertThat(a.pending()).isEqualTo(1);
  }

  @Test
  void aBalancerGetsWholeSets() {
    Balancer<String> balancer = Algorithm.VNSWRR.create(
        BalancerConfig.builder().random(new SplittableRandom(1)).build());
    start(EndpointSink.of(balancer, Endpoint::address, n -> { }));
    source.listener.onEntries(Map.of("a", "10.0.0.1:80;weight=2", "b", "10.0.0.2:80"));
    scheduler.runAll();
    assertThat(balancer.nodes()).extracting(n -> n.endpoint().toString())
        .containsExactlyInAnyOrder("10.0.0.1:80;weight=2", "10.0.0.2:80");
  }

  /** A source the test pushes through by hand. */
  static final class TestSource implements EndpointSource {
    EndpointSource.Listener listener;
    boolean closed;

    @Override
    public void start(Listener l) {
      this.listener = l;
    }

    @Override
    public String name() {
      return "test";
    }

    @Override
    public void close() {
      closed = true;
    }
  }

  /** Records what it is given, as text; can refuse one change. */
  static final class RecordingSink implements EndpointSink {
    final List<String> calls = new ArrayList<>();
    final List<String> failures = new ArrayList<>();
    boolean refuseNext;

    @Override
    public void update(List<Endpoint> endpoints) {
      refuse();
      calls.add("update " + sorted(endpoints));
    }

    @Override
    public boolean takesDeltas() {
      return true;
    }

    @Override
    public void apply(Collection<Endpoint> upserts, Collection<String> removed) {
      refuse();
      calls.add("apply +" + sorted(upserts) + " -" + removed);
    }

    @Override
    public void sourceFailed(Throwable cause) {
      failures.add(cause.getMessage());
    }

    private void refuse() {
      if (refuseNext) {
        refuseNext = false;
        throw new IllegalArgumentException("refused");
      }
    }

    String last() {
      return calls.get(calls.size() - 1);
    }

    private static List<String> sorted(Collection<Endpoint> es) {
      return es.stream().map(Endpoint::toString).sorted().toList();
    }
  }

  /** Holds scheduled tasks until the test runs them; records each delay in nanoseconds. */
  static final class ManualScheduler extends ScheduledThreadPoolExecutor {
    final List<Long> delays = new ArrayList<>();
    final List<Runnable> tasks = new ArrayList<>();

    ManualScheduler() {
      super(1);
    }

    @Override
    public ScheduledFuture<?> schedule(Runnable task, long delay, TimeUnit unit) {
      delays.add(unit.toNanos(delay));
      tasks.add(task);
      return null;
    }

    void runAll() {
      while (!tasks.isEmpty()) {
        tasks.remove(0).run();
      }
    }
  }
}
