package dev.ballast.soak;

import dev.ballast.sim.Flags;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * {@code ./ballast soak [--minutes N] [--seconds N] [--seed N]}: runs the soak (default one
 * minute), prints its table and exits 1 unless every check holds, 2 for a bad flag.
 */
public final class Soak {

  private static final Logger SLOW_LOG = Logger.getLogger("dev.ballast.netty.slow");

  private Soak() {}

  /**
   * What a soak run does.
   *
   * @param duration how long the load and the chaos run; default 1 min
   * @param seed seeds the chaos loop's choices; default 1
   * @param framedInFlight calls kept in flight through the lb-netty client; default 9,000
   * @param grpcInFlight calls kept in flight through the gRPC channel; default 1,000
   * @param heapBoundMiB most heap in use after a collection; default 384 MiB
   * @param directBoundMiB most direct memory in use; default 256 MiB
   */
  public record Config(Duration duration, long seed, int framedInFlight, int grpcInFlight,
      long heapBoundMiB, long directBoundMiB) {

    /** The defaults, for {@code duration}. */
    public static Config of(Duration duration) {
      return new Config(duration, 1, 9_000, 1_000, 384, 256);
    }

    /**
     * Parses the command line.
     *
     * @throws IllegalArgumentException naming the bad flag
     */
    public static Config parse(String[] args) {
      Config[] c = {of(Duration.ofMinutes(1))};
      try {
        Flags.forEach(List.of(args), Set.of(), (flag, value) -> {
          Config x = c[0];
          switch (flag) {
            case "--minutes" -> c[0] = new Config(Duration.ofMinutes(whole(flag, value)),
                x.seed, x.framedInFlight, x.grpcInFlight, x.heapBoundMiB, x.directBoundMiB);
            case "--seconds" -> c[0] = new Config(Duration.ofSeconds(whole(flag, value)),
                x.seed, x.framedInFlight, x.grpcInFlight, x.heapBoundMiB, x.directBoundMiB);
            case "--seed" -> c[0] = new Config(x.duration, whole(flag, value),
                x.framedInFlight, x.grpcInFlight, x.heapBoundMiB, x.directBoundMiB);
            default -> throw new IllegalArgumentException(
                "flag: " + flag + " (expected: --minutes, --seconds or --seed)");
          }
        });
      } catch (IOException e) {
        throw new IllegalStateException(e);
      }
      return c[0];
    }

    private static long whole(String flag, String value) {
      try {
        long v = Long.parseLong(value);
        if (v > 0 && v <= 10_000) {
          return v;
        }
      } catch (NumberFormatException e) {
        // reported below
      }
      throw new IllegalArgumentException(flag + ": " + value + " (expected: 1-10000)");
    }
  }

  /** What {@code ./ballast soak --help} prints. */
  static final String USAGE = """
      usage: ./ballast soak [flags]
        --minutes N     how long the soak runs (default 1)
        --seconds N     the same in seconds
        --seed N        the chaos loop's random seed (default 1)
      Framed and gRPC servers on 127.0.0.1 under chaos (servers killed, stalled, slowed, sending
      garbage, restarted; bad endpoint updates), up to 10,000 calls in flight, Netty at its
      paranoid leak level. Exits 0 when every call ended by its deadline and nothing leaked, 1
      otherwise, 2 for a bad flag.
      """;

  /** Runs the soak and exits with its verdict. */
  public static void main(String[] args) throws Exception {
    if (List.of(args).contains("--help") || List.of(args).contains("-h")) {
      System.out.print(USAGE);
      return;
    }
    Config config;
    try {
      config = Config.parse(args);
    } catch (IllegalArgumentException e) {
      System.err.println("soak: " + e.getMessage());
      System.exit(2);
      return;
    }
    SoakResult r = run(config, System.out);
    System.exit(r.passed() ? 0 : 1);
  }

  /** Runs the soak, printing progress and the final table to {@code out}. */
  static SoakResult run(Config c, PrintStream out) throws Exception {
    Leaks leaks = Leaks.watch();
    long cpuBefore = cpuNanos();
    Memory memory = new Memory();
    double loadBefore = loadAverage();
    // Long answers (6 s, slow 9 s, deadline 10 s) keep 10,000 calls in flight at about 1,700
    // calls a second, which a shared 2-core machine can carry at Netty's paranoid leak level.
    Duration timeout = Duration.ofSeconds(10);
    SoakResult.Builder result = new SoakResult.Builder(c);
    SLOW_LOG.setLevel(Level.OFF); // thousands of slow answers by design
    try (FramedSide framed = new FramedSide(5, c.framedInFlight(), timeout,
            Duration.ofMillis(6_000), Duration.ofMillis(9_000));
        GrpcSide grpc = new GrpcSide(4, c.grpcInFlight(), timeout.toMillis(), 6_000, 9_000)) {
      long until = System.nanoTime() + c.duration().toNanos();
      List<Thread> drivers = new ArrayList<>();
      drivers.add(driver("soak-framed-load", () -> framed.drive(1_800, until)));
      drivers.add(driver("soak-grpc-load", () -> grpc.drive(250, until)));
      Chaos chaos = new Chaos(c.seed(), framed, grpc);
      long startedAt = System.nanoTime();
      long nextReport = startedAt + 10_000_000_000L;
      while (System.nanoTime() < until) {
        chaos.tick();
        memory.sample();
        long now = System.nanoTime();
        if (now - startedAt > 5_000_000_000L) {
          result.inFlight(framed.load.tally.inFlight() + grpc.load.tally.inFlight());
        }
        if (now >= nextReport) {
          nextReport += 10_000_000_000L;
          out.println(progress((now - startedAt) / 1_000_000_000L, framed.load.tally,
              grpc.load.tally));
        }
        Thread.sleep(250);
      }
      for (Thread t : drivers) {
        t.join();
      }
      chaos.restoreAll();
      // Every call ends by its deadline (10 s); a little more for a loaded machine.
      boolean quiet = framed.load.awaitQuiet(20_000) & grpc.load.awaitQuiet(20_000);
      // the chaos's last requests leave the pools first (a stalled one holds its permit and
      // counts as pending until its late answer's wait ends, 2 s past its deadline)
      framed.awaitEmptyPools(15_000);
      // every endpoint answers again once the chaos is over (a jammed pool would not)
      result.silent(framed.silentMembers(200));
      long[] left = framed.awaitEmptyPools(15_000);
      memory.sample();
      result.sides(framed.load.tally, grpc.load.tally).quiet(quiet).leftovers(left)
          .chaos(chaos.counts());
    }
    result.cpuSeconds((cpuNanos() - cpuBefore) / 1e9).leaks(leaks.finish()).memory(memory.heapHighWaterMiB(), memory.directHighWaterMiB())
        .load(loadBefore, loadAverage());
    SoakResult r = result.build();
    r.print(out);
    return r;
  }

  private static String progress(long seconds, Tally... sides) {
    StringBuilder b = new StringBuilder(format("%4d s, load average %.1f:", seconds,
        loadAverage()));
    for (Tally t : sides) {
      b.append(format(" %s %d in flight, %d ended, %d late (worst %d ms past the deadline);",
          t.name, t.inFlight(), t.ended(), t.late(), t.worstOverrunMillis()));
    }
    return b.toString();
  }

  private interface Body {
    void run() throws Exception;
  }

  private static Thread driver(String name, Body body) {
    Thread t = new Thread(() -> {
      try {
        body.run();
      } catch (Exception e) {
        throw new IllegalStateException(name + " stopped", e);
      }
    }, name);
    t.setDaemon(true);
    t.start();
    return t;
  }

  private static long cpuNanos() {
    return ManagementFactory.getPlatformMXBean(com.sun.management.OperatingSystemMXBean.class)
        .getProcessCpuTime();
  }

  static double loadAverage() {
    return ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
  }

  static String format(String pattern, Object... args) {
    return String.format(Locale.ROOT, pattern, args);
  }
}
