package dev.ballast.core;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Fuzz targets (Jazzer) for the endpoint text parsers. {@code mvn verify} runs them over the
 * checked-in inputs ({@code EndpointFuzzTestInputs/}) and fuzzes each briefly; {@code ./ballast
 * fuzz [seconds]} fuzzes longer. The documented failure is {@link IllegalArgumentException};
 * anything else, or an endpoint that does not read back from its own text, is a finding.
 */
class EndpointFuzzTest {

  /** Parses UTF-8 text; an accepted endpoint reads back equal from its text form. */
  @FuzzTest
  void parse(byte[] input) {
    String text = new String(input, StandardCharsets.UTF_8);
    Endpoint e;
    try {
      e = Endpoint.parse(text);
    } catch (IllegalArgumentException expected) {
      return;
    }
    checkRoundTrip(e);
  }

  /** Parses a comma-separated list; accepted lists have distinct addresses that read back. */
  @FuzzTest
  void parseList(byte[] input) {
    String text = new String(input, StandardCharsets.UTF_8);
    List<Endpoint> list;
    try {
      list = Endpoint.parseList(text);
    } catch (IllegalArgumentException expected) {
      return;
    }
    Set<String> addresses = new HashSet<>();
    for (Endpoint e : list) {
      if (!addresses.add(e.address())) {
        throw new AssertionError("address " + e.address() + " twice in " + list);
      }
      checkRoundTrip(e);
    }
  }

  private static void checkRoundTrip(Endpoint e) {
    if (e.port() < 1 || e.port() > 65535 || e.weight() < 1 || e.host().isEmpty()) {
      throw new AssertionError("out of range: " + e);
    }
    Endpoint again = Endpoint.parse(e.toString());
    if (!again.equals(e) || again.hashCode() != e.hashCode()
        || !again.toString().equals(e.toString())) {
      throw new AssertionError(e + " reads back as " + again);
    }
  }
}
