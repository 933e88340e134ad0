package dev.ballast.discovery.xds.internal;

import com.code_intelligence.jazzer.junit.FuzzTest;
import com.google.protobuf.ByteString;
import com.google.protobuf.InvalidProtocolBufferException;
import dev.ballast.core.Endpoint;
import io.envoyproxy.envoy.config.endpoint.v3.ClusterLoadAssignment;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;

/**
 * Fuzz target (Jazzer) for the reader of xDS resources: bytes read as a {@code
 * ClusterLoadAssignment} (the wire form a control plane sends), then turned into entries as
 * {@code XdsSource} does, by one {@link EdsEntries} that remembers the resources before. {@code
 * mvn verify} replays the checked-in inputs ({@code EdsEntriesFuzzTestInputs/}); {@code ./ballast
 * fuzz [seconds]} fuzzes. The documented failure is an {@link IllegalArgumentException} naming
 * the resource; anything else is a finding, as is an entry that lb-core would not read back, an
 * entry keyed by another address, a total weight past 2^31-1, or a remembered read that differs
 * from a fresh one.
 */
class EdsEntriesFuzzTest {

  private static final Set<String> HEALTH = Set.of("healthy", "degraded", "unhealthy");
  private static final EdsEntries REMEMBERING = new EdsEntries(); // across inputs, as a stream

  /** Reads one resource. */
  @FuzzTest
  void read(byte[] input) {
    ClusterLoadAssignment cla;
    try {
      cla = ClusterLoadAssignment.parseFrom(input);
    } catch (InvalidProtocolBufferException notAResource) {
      // XdsSource NACKs it as unparsable; the reader of bytes says so too (or, nesting limits
      // apart, takes what protobuf's own reader refuses)
      Outcome.of(() -> new EdsEntries().readChange(PackedEds.of(ByteString.copyFrom(input),
          "resource 0")).entries());
      return;
    }
    Outcome fresh = Outcome.of(() -> EdsEntries.entries(cla));
    if (fresh.error != null && !fresh.error.startsWith("EDS resource " + cla.getClusterName())) {
      throw new AssertionError("a rejection that names no resource: " + fresh.error);
    }
    // as XdsSource reads it: from the bytes, parsing the endpoints not as in the input before
    Outcome remembered = Outcome.of(() -> REMEMBERING.readChange(PackedEds.of(
        ByteString.copyFrom(input), "resource 0")).entries());
    if (!fresh.equals(remembered)) {
      throw new AssertionError("remembered read " + remembered + " differs from a fresh one "
          + fresh);
    }
    if (fresh.entries == null) {
      return;
    }
    long total = 0;
    for (Map.Entry<String, String> e : fresh.entries.entrySet()) {
      Endpoint ep = Endpoint.parse(e.getValue()); // must read back
      if (!ep.address().equals(e.getKey()) || ep.port() < 1 || ep.port() > 65535
          || ep.weight() < 1 || ep.priority() < 0 || ep.priority() > Endpoint.MAX_PRIORITY
          || !HEALTH.contains(ep.label(Endpoint.HEALTH))) {
        throw new AssertionError("entry " + e + " reads as " + ep);
      }
      total += ep.weight();
    }
    if (total > Integer.MAX_VALUE) {
      throw new AssertionError("weights total " + total + " in " + fresh);
    }
  }

  /** The entries a read gives, or the message of its rejection. */
  private record Outcome(Map<String, String> entries, String error) {
    static Outcome of(Supplier<Map<String, String>> read) {
      try {
        return new Outcome(read.get(), null);
      } catch (IllegalArgumentException e) {
        return new Outcome(null, String.valueOf(e.getMessage()));
      }
    }
  }
}
