package dev.ballast.sim;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.random.RandomGenerator;

/**
 * How long a backend takes to answer, drawn per request from a seeded random source. Build one
 * with {@link #constant}, {@link #normal}, {@link #logNormal}, {@link #replay} or {@link #parse}.
 */
public interface LatencyDistribution {

  /** Draws one latency in nanoseconds (never negative). */
  long sampleNanos(RandomGenerator random);

  /** Returns the textual form accepted by {@link #parse}. */
  @Override
  String toString();

  /** Returns a distribution that always answers in {@code nanos}. */
  static LatencyDistribution constant(long nanos) {
    check("latency", nanos);
    return new LatencyDistribution() {
      @Override
      public long sampleNanos(RandomGenerator random) {
        return nanos;
      }


      @Override
      public String toString() {
        return "constant(" + Durations.format(nanos) + ")";
      }
    };
  }

  /** Returns a normal distribution of the given mean and standard deviation, cut at 0. */
  static LatencyDistribution normal(long meanNanos, long stddevNanos) {
    check("mean", meanNanos);
    check("stddev", stddevNanos);
    return new LatencyDistribution() {
      @Override
      public long sampleNanos(RandomGenerator random) {
        return Math.max(0, Math.round(meanNanos + stddevNanos * random.nextGaussian()));
      }


      @Override
      public String toString() {
        return "normal(" + Durations.format(meanNanos) + "," + Durations.format(stddevNanos) + ")";
      }
    };
  }

  /**
   * Returns a log-normal distribution of the given median and shape {@code sigma} (the standard
   * deviation of the latency's natural logarithm; 0.5 gives a p99 about 3.2x the median).
   */
  static LatencyDistribution logNormal(long medianNanos, double sigma) {
    check("median", medianNanos);
    if (!(sigma >= 0) || Double.isInfinite(sigma)) {
      throw new IllegalArgumentException("sigma: " + sigma + " (expected: a finite number >= 0)");
    }
    double mu = Math.log(Math.max(1, medianNanos));
    return new LatencyDistribution() {
      @Override
      public long sampleNanos(RandomGenerator random) {
        return Math.round(Math.exp(mu + sigma * random.nextGaussian()));
      }


      @Override
      public String toString() {
        return "lognormal(" + Durations.format(medianNanos) + "," + sigma + ")";
      }
    };
  }

  /**
   * Returns a distribution that replays recorded latencies: each draw takes one of them uniformly
   * at random (so the recorded histogram is reproduced, whatever the order of requests).
   *
   * @param file one latency per line, with a unit ({@code 12.5ms}) or a bare number of
   *     milliseconds; blank lines and lines starting with {@code #} are skipped
   */
  static LatencyDistribution replay(Path file) throws IOException {
    List<Long> values = new ArrayList<>();
    int lineNo = 0;
    for (String line : Files.readAllLines(file)) {
      lineNo++;
      String t = line.trim();
      if (t.isEmpty() || t.startsWith("#")) {
        continue;
      }
      try {
        values.add(Character.isDigit(t.charAt(t.length() - 1))
            ? Math.round(Double.parseDouble(t) * 1e6)
            : Durations.parseNanos(t));
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(
            "latency: " + t + " at " + file + ":" + lineNo + " (expected: e.g. 12.5ms or 12.5)", e);
      }
    }
    if (values.isEmpty()) {
      throw new IllegalArgumentException("replay file: " + file + " has no latencies (expected: one per line)");
    }
    long[] recorded = values.stream().mapToLong(Long::longValue).toArray();
    return new LatencyDistribution() {
      @Override
      public long sampleNanos(RandomGenerator random) {
        return recorded[random.nextInt(recorded.length)];
      }


      @Override
      public String toString() {
        return "replay(" + file + ")";
      }
    };
  }

  /**
   * Parses {@code constant:20ms}, {@code normal:167ms,5ms}, {@code lognormal:20ms,0.5} or
   * {@code replay:FILE}; a bare duration ({@code 2s}) is a constant.
   *
   * @throws IllegalArgumentException naming the bad text and the expected forms
   */
  static LatencyDistribution parse(String text) {
    String t = text.trim();
    int colon = t.indexOf(':');
    String kind = colon < 0 ? "constant" : t.substring(0, colon).toLowerCase(Locale.ROOT);
    String args = colon < 0 ? t : t.substring(colon + 1);
    String[] a = args.split(",");
    try {
      switch (kind) {
        case "constant":
          if (a.length == 1) {
            return constant(Durations.parseNanos(a[0]));
          }
          break;
        case "normal":
          if (a.length == 2) {
            return normal(Durations.parseNanos(a[0]), Durations.parseNanos(a[1]));
          }
          break;
        case "lognormal":
        case "log-normal":
          if (a.length == 2) {
            return logNormal(Durations.parseNanos(a[0]), Double.parseDouble(a[1].trim()));
          }
          break;
        case "replay":
          return replay(Path.of(args));
        default:
          break;
      }
    } catch (IOException e) {
      throw new IllegalArgumentException("latency: " + text + " (cannot read the file: " + e + ")", e);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("latency: " + text + " (" + e.getMessage() + ")", e);
    }
    throw new IllegalArgumentException("latency: " + text
        + " (expected: constant:20ms, normal:MEAN,STDDEV, lognormal:MEDIAN,SIGMA or replay:FILE)");
  }

  private static void check(String what, long nanos) {
    if (nanos < 0) {
      throw new IllegalArgumentException(what + ": " + nanos + "ns (expected: >= 0)");
    }
  }
}
