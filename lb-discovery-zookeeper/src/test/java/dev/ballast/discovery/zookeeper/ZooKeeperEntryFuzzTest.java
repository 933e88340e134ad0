package dev.ballast.discovery.zookeeper;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.ballast.core.Endpoint;
import java.nio.charset.StandardCharsets;

/**
 * Fuzz target (Jazzer) for the reader of a ZooKeeper node's data: the textual form or
 * x-discovery's ServiceInstance JSON. {@code mvn verify} replays the checked-in inputs ({@code
 * ZooKeeperEntryFuzzTestInputs/}); {@code ./ballast fuzz [seconds]} fuzzes. The documented
 * failure is {@link IllegalArgumentException}; anything else (a {@link StackOverflowError} on
 * deep nesting, say), or an endpoint that does not read back from its own text, is a finding.
 */
class ZooKeeperEntryFuzzTest {

  /** Reads UTF-8 node data, as the source decodes it. */
  @FuzzTest
  void entry(byte[] input) {
    Endpoint e;
    try {
      e = ZooKeeperSource.entry(new String(input, StandardCharsets.UTF_8));
    } catch (IllegalArgumentException expected) {
      return;
    }
    Endpoint again = Endpoint.parse(e.toString());
    if (!again.equals(e) || e.port() < 1 || e.port() > 65535 || e.weight() < 1) {
      throw new AssertionError(e + " reads back as " + again);
    }
  }
}
