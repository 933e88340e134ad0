package dev.ballast.core.load;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Base64;

/**
 * Fuzz target (Jazzer) for {@link EndpointLoadMetrics#parse}, in its text, JSON and binary
 * forms: a server's header is untrusted text. Reading must never throw, and what it gives must
 * be a report balancers can use: every value finite, non-negative, utilizations at most 100, at
 * most {@link EndpointLoadMetrics#MAX_NAMED} names. {@code mvn verify} replays the checked-in
 * inputs; {@code ./ballast fuzz} fuzzes longer.
 */
class EndpointLoadMetricsFuzzTest {

  @FuzzTest
  void parse(byte[] input) {
    String text = new String(input, StandardCharsets.UTF_8);
    String header = input.length > 0 && (input[0] & 1) == 0 ? "TEXT " + text
        : input.length > 0 && (input[0] & 2) == 0 ? "JSON " + text
        : input.length > 0 && (input[0] & 4) == 0 ? "BIN " + Base64.getEncoder().encodeToString(
            Arrays.copyOfRange(input, 1, input.length)) : text;
    LoadReport r = EndpointLoadMetrics.parse(header);
    // above 1 is kept (A51: past a server's soft limits), above 100 (10,000%) rejected
    check(r.cpuUtilization() >= 0 && r.cpuUtilization() <= 100, r);
    check(r.applicationUtilization() >= 0 && r.applicationUtilization() <= 100, r);
    check(r.qps() >= 0 && r.qps() < Double.POSITIVE_INFINITY, r);
    check(r.eps() >= 0 && r.eps() < Double.POSITIVE_INFINITY, r);
    check(r.rejected() >= 0 && r.namedMetrics().size() <= EndpointLoadMetrics.MAX_NAMED, r);
    r.namedMetrics().values().forEach(v -> check(v >= 0 && v < Double.POSITIVE_INFINITY, r));
    check(r.weight(1) >= 0 && r.weight(1) < Double.POSITIVE_INFINITY, r);
  }

  private static void check(boolean ok, LoadReport r) {
    if (!ok) {
      throw new AssertionError("unusable report: " + r);
    }
  }
}
