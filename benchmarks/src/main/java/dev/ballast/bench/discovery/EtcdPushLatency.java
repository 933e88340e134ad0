package dev.ballast.bench.discovery;

import dev.ballast.bench.subset.SubsetData;
import dev.ballast.core.Endpoint;
import dev.ballast.core.source.EndpointFeed;
import dev.ballast.core.source.EndpointSink;
import dev.ballast.discovery.etcd.EtcdServer;
import dev.ballast.discovery.etcd.EtcdSource;
import dev.ballast.core.subset.FallbackPolicy;
import dev.ballast.core.subset.RequestLabels;
import dev.ballast.core.subset.SubsetSelector;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.PutOption;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.HdrHistogram.Histogram;

/**
 * Scale of the etcd path: 8000 endpoints with the four labels of the subset benchmarks'
 * {@code harder} data set live in a real etcd (started here on 127.0.0.1, as the tests do); a
 * client's {@link SubsetSelector} follows them through {@link EtcdSource} and {@link
 * EndpointFeed}. Each push changes the labels of 50 endpoints in one etcd transaction; the run
 * reports, over the pushes, the time from just before the transaction is sent to the moment the
 * selector's new state is in place (the apply returned: the next pick reads it), and checks
 * that each push reached the selector as one delta of 50. Meanwhile one thread picks (pick and
 * complete) on random subsets; its latency p99.9 during pushes is compared with an idle phase of
 * the same length.
 *
 * <p>{@code java -cp benchmarks/target/benchmarks.jar dev.ballast.bench.discovery.EtcdPushLatency
 * [pushes=30] [gapMs=300]}
 */
public final class EtcdPushLatency {

  private static final String PREFIX = "/bench/orders/";

  private EtcdPushLatency() {}

  public static void main(String[] args) throws Exception {
    int pushes = args.length > 0 ? Integer.parseInt(args[0]) : 30;
    long gapMs = args.length > 1 ? Long.parseLong(args[1]) : 300;
    List<Endpoint> hosts = SubsetData.hosts("harder", 8000, 42);
    try (EtcdServer etcd = EtcdServer.start();
        Client client = Client.builder().endpoints(etcd.clientUrl()).build()) {
      for (int i = 0; i < hosts.size(); i += 100) {
        client.getKVClient().txn().Then(puts(hosts.subList(i, Math.min(hosts.size(), i + 100))))
            .commit().get(30, TimeUnit.SECONDS);
      }
      SubsetSelector<String> selector = SubsetSelector.<String>builder()
          .selectors(SubsetData.selectors()).fallbackPolicy(FallbackPolicy.ANY_ENDPOINT).build();
      Applies applies = new Applies(EndpointSink.of(selector, Endpoint::address, n -> { }));
      try (EndpointFeed feed = EndpointFeed.builder(EtcdSource.of(client, PREFIX))
          .start(applies)) {
        while (feed.endpointCount() < hosts.size()) {
          Thread.sleep(10);
        }
        List<RequestLabels> probes = probes(hosts);
        Picker picker = new Picker(selector, probes);
        Thread t = new Thread(picker, "picker");
        t.start();
        Thread.sleep(1000); // warm-up: the children of the probed subsets are made
        picker.phase.set(picker.idle);
        Thread.sleep(pushes * gapMs);
        picker.phase.set(picker.pushing);
        long[] latencies = new long[pushes];
        long[] commits = new long[pushes];
        List<Endpoint> current = hosts;
        for (int k = 0; k < pushes; k++) {
          List<Endpoint> next = SubsetData.relabel(current, "harder", 50, 1000 + k);
          List<Endpoint> changed = new ArrayList<>();
          for (int i = 0; i < next.size(); i++) {
            if (next.get(i) != current.get(i)) {
              changed.add(next.get(i));
            }
          }
          long before = applies.count.get();
          long t0 = System.nanoTime();
          client.getKVClient().txn().Then(puts(changed)).commit().get(30, TimeUnit.SECONDS);
          commits[k] = System.nanoTime() - t0;
          while (applies.count.get() == before) {
            Thread.onSpinWait();
          }
          latencies[k] = applies.lastAt - t0;
          if (applies.count.get() != before + 1 || applies.lastUpserts != 50) {
            throw new IllegalStateException("push " + k + " reached the selector as "
                + (applies.count.get() - before) + " applies, the last of "
                + applies.lastUpserts + " upserts (expected: one delta of 50)");
          }
          current = next;
          Thread.sleep(gapMs);
        }
        picker.phase.set(null);
        picker.stop.set(true);
        t.join();
        Arrays.sort(latencies);
        Arrays.sort(commits);
        System.out.printf("load average: %s%n", Files.readString(Path.of("/proc/loadavg")).trim());
        System.out.printf("pushes: %d of 50 changed endpoints (of %d), each one delta of 50%n",
            pushes, hosts.size());
        System.out.printf("etcd write -> state visible to picks: median %.1f ms, p99 %.1f ms, "
            + "max %.1f ms%n", ms(latencies[pushes / 2]),
            ms(latencies[(int) Math.ceil(pushes * 0.99) - 1]), ms(latencies[pushes - 1]));
        System.out.printf("  of which etcd's own commit (the writer's answer): median %.1f ms, "
            + "p99 %.1f ms%n", ms(commits[pushes / 2]),
            ms(commits[(int) Math.ceil(pushes * 0.99) - 1]));
        double idle = picker.idle.getValueAtPercentile(99.9);
        double busy = picker.pushing.getValueAtPercentile(99.9);
        System.out.printf("pick p99.9: idle %.0f ns (%d picks), during pushes %.0f ns (%d picks):"
            + " %.2fx%n", idle, picker.idle.getTotalCount(), busy,
            picker.pushing.getTotalCount(), busy / idle);
      }
    }
  }

  private static double ms(long nanos) {
    return nanos / 1e6;
  }

  private static Op[] puts(List<Endpoint> endpoints) {
    Op[] ops = new Op[endpoints.size()];
    for (int i = 0; i < ops.length; i++) {
      Endpoint e = endpoints.get(i);
      ops[i] = Op.put(bytes(PREFIX + e.address()), bytes(e.toString()), PutOption.DEFAULT);
    }
    return ops;
  }

  private static ByteSequence bytes(String s) {
    return ByteSequence.from(s, StandardCharsets.UTF_8);
  }

  // request labels of existing subsets: a random selector's keys with a random host's values
  private static List<RequestLabels> probes(List<Endpoint> hosts) {
    SplittableRandom r = new SplittableRandom(7);
    List<List<String>> selectors = SubsetData.selectors();
    List<RequestLabels> out = new ArrayList<>();
    for (int i = 0; i < 256; i++) {
      Endpoint h = hosts.get(r.nextInt(hosts.size()));
      Map<String, String> labels = new TreeMap<>();
      for (String k : selectors.get(r.nextInt(selectors.size()))) {
        labels.put(k, h.label(k));
      }
      out.add(RequestLabels.of(labels));
    }
    return out;
  }

  /** Picks in a loop, timing each pick and complete into the histogram of the phase. */
  private static final class Picker implements Runnable {
    final SubsetSelector<String> selector;
    final List<RequestLabels> probes;
    final Histogram idle = new Histogram(TimeUnit.SECONDS.toNanos(1), 3);
    final Histogram pushing = new Histogram(TimeUnit.SECONDS.toNanos(1), 3);
    final AtomicReference<Histogram> phase = new AtomicReference<>();
    final AtomicBoolean stop = new AtomicBoolean();

    Picker(SubsetSelector<String> selector, List<RequestLabels> probes) {
      this.selector = selector;
      this.probes = probes;
    }

    @Override
    public void run() {
      int i = 0;
      while (!stop.get()) {
        ZonePicker.timedPick(selector, probes.get(i++ & 255), phase);
      }
    }
  }
}
