package dev.ballast.discovery.etcd;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.ballast.core.Endpoint;
import io.etcd.jetcd.ByteSequence;

/**
 * Fuzz target (Jazzer) for the reader of an etcd value: its bytes decoded as the source decodes
 * them, then read as the textual form. {@code mvn verify} replays the checked-in inputs ({@code
 * EtcdEntryFuzzTestInputs/}); {@code ./ballast fuzz [seconds]} fuzzes. The documented failure is
 * {@link IllegalArgumentException}; anything else, or an endpoint that does not read back from
 * its own text, is a finding.
 */
class EtcdEntryFuzzTest {

  /** Reads a value as etcd holds it. */
  @FuzzTest
  void value(byte[] input) {
    Endpoint e;
    try {
      e = EtcdSource.entry(EtcdSource.text(ByteSequence.from(input)));
    } catch (IllegalArgumentException expected) {
      return;
    }
    Endpoint again = Endpoint.parse(e.toString());
    if (!again.equals(e) || e.port() < 1 || e.port() > 65535 || e.weight() < 1) {
      throw new AssertionError(e + " reads back as " + again);
    }
  }
}
