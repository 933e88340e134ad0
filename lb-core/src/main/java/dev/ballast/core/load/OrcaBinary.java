package dev.ballast.core.load;

import java.nio.charset.StandardCharsets;
import java.util.Base64;

/**
 * Reads the binary form of Envoy's {@code endpoint-load-metrics} header: {@code BIN} and the
 * base64 of a serialized {@code xds.data.orca.v3.OrcaLoadReport} (the message of gRFC A51). A
 * reader of the protobuf wire format for that message alone (Protocol Buffers' encoding guide):
 * doubles 1 {@code cpu_utilization}, 2 {@code mem_utilization}, 6 {@code rps_fractional}, 7
 * {@code eps}, 9 {@code application_utilization}; maps of string to double 4 {@code
 * request_cost}, 5 {@code utilization} and 8 {@code named_metrics} (the last two read as named
 * metrics, as the JSON form does, a name in both giving the utilization's); 3 {@code rps} and
 * unknown fields skipped; a field number outside 1 to 2^29 - 1 is malformed. Malformed input
 * (bad base64, a truncated field, a group, a length past the end) ends the reading, counted
 * once; what was read before it is kept. The base64 may omit its padding or use the URL-safe
 * alphabet. Never throws.
 */
final class OrcaBinary {

  private final byte[] b;
  private final EndpointLoadMetrics.Fields f;
  private int at;

  private OrcaBinary(byte[] b, EndpointLoadMetrics.Fields f) {
    this.b = b;
    this.f = f;
  }

  /** Reads the base64 text after {@code BIN } into {@code f}. */
  static void read(String base64, EndpointLoadMetrics.Fields f) {
    byte[] bytes;
    String text = base64.strip();
    try {
      // padding optional, as gRPC's binary headers have it; the URL-safe alphabet too
      bytes = text.indexOf('-') >= 0 || text.indexOf('_') >= 0
          ? Base64.getUrlDecoder().decode(text) : Base64.getDecoder().decode(text);
    } catch (IllegalArgumentException e) {
      f.bad++;
      return;
    }
    read(bytes, f);
  }

  /** Reads the serialized report {@code bytes} into {@code f}. */
  static void read(byte[] bytes, EndpointLoadMetrics.Fields f) {
    OrcaBinary r = new OrcaBinary(bytes, f);
    try {
      r.report();
    } catch (IllegalStateException e) {
      f.bad++;
    }
  }

  private void report() {
    while (at < b.length) {
      long tag = tag();
      int field = (int) (tag >>> 3);
      int wire = (int) (tag & 7);
      if (wire == 1 && field != 3) {
        double v = Double.longBitsToDouble(fixed64());
        switch (field) {
          case 1 -> f.set("cpu_utilization", v, false);
          case 6 -> f.set("rps_fractional", v, false);
          case 7 -> f.set("eps", v, false);
          case 9 -> f.set("application_utilization", v, false);
          default -> { } // mem_utilization, unknown fields
        }
      } else if (wire == 2 && (field == 5 || field == 8)) {
        int end = length();
        entry(field, end);
      } else {
        skip(wire);
      }
    }
  }

  /**
   * Reads one entry of map {@code field} (5, {@code utilization}; 8, {@code named_metrics}):
   * key 1, a string; value 2, a double; ending at {@code end}.
   */
  private void entry(int field, int end) {
    String key = null;
    double value = 0; // proto3: an absent value is 0
    while (at < end) {
      long tag = tag();
      int number = (int) (tag >>> 3);
      int wire = (int) (tag & 7);
      if (number == 1 && wire == 2) {
        int keyEnd = length();
        key = new String(b, at, keyEnd - at, StandardCharsets.UTF_8);
        at = keyEnd;
      } else if (number == 2 && wire == 1) {
        value = Double.longBitsToDouble(fixed64());
      } else {
        skip(wire);
      }
    }
    if (at != end) {
      throw new IllegalStateException("entry past its length");
    }
    f.named(key == null ? "" : key, value, field == 5);
  }

  /** Reads a tag: a field number from 1 to 2^29 - 1 and a wire type. */
  private long tag() {
    long tag = varint();
    if (tag >>> 3 == 0 || tag >>> 32 != 0) {
      throw new IllegalStateException("field number out of range");
    }
    return tag;
  }

  private void skip(int wire) {
    switch (wire) {
      case 0 -> varint();
      case 1 -> fixed64();
      case 2 -> at = length();
      case 5 -> {
        need(4);
        at += 4;
      }
      default -> throw new IllegalStateException("wire type " + wire);
    }
  }

  /** Reads a length and returns where the bytes it covers end, within the input. */
  private int length() {
    long n = varint();
    if (n < 0 || n > b.length - at) {
      throw new IllegalStateException("length past the end");
    }
    return at + (int) n;
  }

  private long varint() {
    long v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      need(1);
      byte x = b[at++];
      v |= (long) (x & 0x7f) << shift;
      if (x >= 0) {
        return v;
      }
    }
    throw new IllegalStateException("varint longer than 10 bytes");
  }

  private long fixed64() {
    need(8);
    long v = 0;
    for (int i = 7; i >= 0; i--) {
      v = v << 8 | (b[at + i] & 0xffL);
    }
    at += 8;
    return v;
  }

  private void need(int n) {
    if (b.length - at < n) {
      throw new IllegalStateException("truncated");
    }
  }
}
