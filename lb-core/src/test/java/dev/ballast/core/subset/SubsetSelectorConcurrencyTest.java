package dev.ballast.core.subset;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.core.Endpoint;
import dev.ballast.core.Node;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

/**
 * Eight threads pick while a ninth applies 400 updates (whole lists, or the same changes as
 * deltas) about a millisecond apart: no pick throws,
 * and every picked node is in the requested subset of a state that was current during the pick,
 * or in the fallback set when that state had no such subset.
 */
class SubsetSelectorConcurrencyTest {

  private static final int UPDATES = 400;
  private static final int PICKERS = 8;
  private static final int GENERATIONS = 6;

  @Test
  void picksStayInTheirSubsetWhileUpdatesRun() throws Exception {
    run(false);
  }

  /** The same generations reached by deltas ({@link SubsetSelector#apply}) instead. */
  @Test
  void picksStayInTheirSubsetWhileDeltasApply() throws Exception {
    run(true);
  }

  private void run(boolean deltas) throws Exception {
    List<List<Endpoint>> generations = new ArrayList<>();
    for (int g = 0; g < GENERATIONS; g++) {
      generations.add(generation(g));
    }
    SubsetSelector<String> selector = SubsetSelector.<String>builder()
        .selector("zone")
        .selector("zone", "version")
        .fallbackPolicy(FallbackPolicy.ANY_ENDPOINT)
        .build();
    List<RequestLabels> requests = List.of(
        RequestLabels.of("zone", "a"),
        RequestLabels.of("zone", "b"),
        RequestLabels.of("zone", "a", "version", "2"),
        RequestLabels.of("zone", "c")); // only in even generations: else the fallback
    // allowed[g][r]: the addresses a pick of request r may return in generation g
    List<List<Set<String>>> allowed = new ArrayList<>();
    for (List<Endpoint> gen : generations) {
      List<Set<String>> perRequest = new ArrayList<>();
      for (RequestLabels r : requests) {
        Set<String> match = new HashSet<>();
        Set<String> all = new HashSet<>();
        for (Endpoint e : gen) {
          all.add(e.address());
          if (r.matches(e.labels())) {
            match.add(e.address());
          }
        }
        perRequest.add(match.isEmpty() ? all : match);
      }
      allowed.add(perRequest);
    }
    selector.update(generations.get(0), Endpoint::address);
    AtomicInteger published = new AtomicInteger(0);
    AtomicBoolean done = new AtomicBoolean();
    ConcurrentLinkedQueue<String> failures = new ConcurrentLinkedQueue<>();
    AtomicLong picks = new AtomicLong();
    CountDownLatch start = new CountDownLatch(1);
    ExecutorService pool = Executors.newFixedThreadPool(PICKERS + 1);
    try {
      List<Future<?>> futures = new ArrayList<>();
      for (int t = 0; t < PICKERS; t++) {
        int seed = t;
        futures.add(pool.submit(() -> {
          start.await();
          int i = seed;
          // at least 2000 picks each, then until the updater is done
          for (int n = 0; n < 2000 || !done.get(); n++, i++) {
            int r = i % requests.size();
            int g0 = published.get();
            Node<String> node;
            try {
              node = selector.pick(requests.get(r));
            } catch (RuntimeException e) {
              failures.add("pick " + requests.get(r) + " threw " + e);
              continue;
            }
            int g1 = published.get();
            boolean ok = false;
            for (int g = g0; g <= g1 + 1 && g <= UPDATES; g++) {
              ok |= allowed.get(g % GENERATIONS).get(r).contains(node.address());
            }
            if (!ok) {
              failures.add("pick " + requests.get(r) + " returned " + node.address()
                  + " in updates " + g0 + ".." + (g1 + 1));
            }
            node.complete(1000, true);
            picks.incrementAndGet();
          }
          return null;
        }));
      }
      Future<?> updater = pool.submit(() -> {
        start.await();
        for (int u = 1; u <= UPDATES; u++) {
          List<Endpoint> next = generations.get(u % GENERATIONS);
          if (deltas) {
            List<Endpoint> upserts = new ArrayList<>();
            List<String> removals = new ArrayList<>();
            diff(generations.get((u - 1) % GENERATIONS), next, upserts, removals);
            List<Node<String>> removed = selector.apply(upserts, removals, Endpoint::address);
            if (removed.size() != removals.size()) {
              failures.add("delta " + u + " removed " + removed.size() + " of " + removals);
            }
          } else {
            selector.update(next, Endpoint::address);
          }
          published.set(u);
          LockSupport.parkNanos(1_000_000);
        }
        done.set(true);
        return null;
      });
      start.countDown();
      updater.get(60, TimeUnit.SECONDS);
      for (Future<?> f : futures) {
        f.get(60, TimeUnit.SECONDS);
      }
    } finally {
      done.set(true);
      pool.shutdownNow();
      assertThat(pool.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }
    assertThat(failures).isEmpty();
    assertThat(picks.get()).isGreaterThanOrEqualTo(PICKERS * 2000L);
    // both update paths ran
    assertThat(selector.stats().incrementalUpdates()).isPositive();
    assertThat(selector.stats().fullBuilds()).isGreaterThan(1);
    // every pick was ended: no pending requests left on any node
    for (Node<String> n : selector.nodes()) {
      assertThat(n.pending()).isZero();
    }
  }

  /** The delta from one generation to the next: new or changed endpoints, gone addresses. */
  private static void diff(List<Endpoint> from, List<Endpoint> to, List<Endpoint> upserts,
      List<String> removals) {
    Map<String, Endpoint> before = new HashMap<>();
    for (Endpoint e : from) {
      before.put(e.address(), e);
    }
    for (Endpoint e : to) {
      if (!e.equals(before.remove(e.address()))) {
        upserts.add(e);
      }
    }
    removals.addAll(before.keySet());
  }

  /**
   * 200 stable hosts (zone a or b); 20 flappers whose zone and version change each generation;
   * zone c only in even generations; generation 5 relabels half the stable hosts (a full build).
   */
  private static List<Endpoint> generation(int g) {
    List<Endpoint> out = new ArrayList<>();
    for (int i = 0; i < 200; i++) {
      Map<String, String> labels = new HashMap<>();
      labels.put("zone", i % 2 == 0 ? "a" : "b");
      labels.put("version", g == 5 && i < 100 ? "3" : String.valueOf(1 + i % 2));
      out.add(Endpoint.of("10.0.0." + (i + 1), 80, 1 + (i % 3), labels));
    }
    for (int i = 0; i < 20; i++) {
      if ((i + g) % 4 == 0) {
        continue; // absent in this generation
      }
      Map<String, String> labels = new HashMap<>();
      labels.put("zone", (i + g) % 2 == 0 ? "a" : "b");
      labels.put("version", String.valueOf(1 + (i * g) % 2));
      out.add(Endpoint.of("10.0.1." + (i + 1), 80, 1 + g % 2, labels));
    }
    if (g % 2 == 0) {
      out.add(Endpoint.of("10.0.2.1", 80, 1, Map.of("zone", "c", "version", "1")));
    }
    return out;
  }
}
