package dev.ballast.netty.framed;

import java.util.Objects;

/**
 * One message of the framed protocol. On the wire: a 4-byte big-endian length (of everything
 * after it), a 1-byte {@linkplain #type() type}, an 8-byte request id, then the payload.
 *
 * <p>Load reports: a client whose balancer weighs servers by their load sets {@link
 * #ASKS_LOAD_REPORT} in a request's id; a server that reports its load then writes a {@link
 * #LOAD_REPORT} frame with that id just before the answer, when it has a new sample for that
 * connection or its last was sent there a second ago (not with every answer). Both ends stay
 * compatible with peers
 * that predate reports: a server that does not know the bit echoes the id as it came and sends
 * no report (the client masks the bit off the ids it reads), and a server sends a report only to
 * a request that asked, so a client that never asks never sees a frame type it does not know. A
 * report is a frame of its own, so that nothing in it can break the answer or the connection.
 *
 * <p>The payload is a plain byte array so that frames hold no reference-counted buffer and
 * cannot leak.
 */
public final class Frame {

  /** Bytes of the header after the length field: type (1) and request id (8). */
  public static final int HEADER_BYTES = 9;
  /** Bytes of the length field. */
  public static final int LENGTH_BYTES = 4;
  /** A request from a client. */
  public static final byte REQUEST = 1;
  /** A successful response; the id is the request's. */
  public static final byte RESPONSE = 2;
  /** A failed response; the payload is a UTF-8 message. */
  public static final byte ERROR = 3;
  /**
   * A health check: a client's ping, answered by a ping with the same id when the server is
   * serving, or by an {@link #ERROR} saying why not; never given to the server's handler.
   */
  public static final byte PING = 4;
  /**
   * A server's load report for the request of this id, sent just before its answer; the payload
   * is the UTF-8 text of Envoy's {@code endpoint-load-metrics} header ({@code TEXT
   * cpu_utilization=0.3, rps_fractional=120, eps=2}, or its {@code JSON} form), at most {@link
   * #MAX_LOAD_REPORT_BYTES}. Sent only to requests that asked ({@link #ASKS_LOAD_REPORT}).
   */
  public static final byte LOAD_REPORT = 5;
  /**
   * The bit of a request's id that asks the server for a {@link #LOAD_REPORT}; ids are counted
   * below it. The server echoes it in the answer's id.
   */
  public static final long ASKS_LOAD_REPORT = 1L << 62;
  /** The longest load report a server sends, in bytes: 8192. */
  public static final int MAX_LOAD_REPORT_BYTES = 8192;

  private final byte type;
  private final long id;
  private final byte[] payload;

  /**
   * Creates a frame.
   *
   * @throws IllegalArgumentException if the type is not {@link #REQUEST}, {@link #RESPONSE},
   *     {@link #ERROR}, {@link #PING} or {@link #LOAD_REPORT}
   */
  public Frame(byte type, long id, byte[] payload) {
    if (type < REQUEST || type > LOAD_REPORT) {
      throw new IllegalArgumentException("type: " + type + " (expected: 1 to 5)");
    }
    this.type = type;
    this.id = id;
    this.payload = Objects.requireNonNull(payload, "payload");
  }

  /**
   * Returns the type: {@link #REQUEST}, {@link #RESPONSE}, {@link #ERROR}, {@link #PING} or
   * {@link #LOAD_REPORT}.
   */
  public byte type() {
    return type;
  }

  /** Returns the request id, chosen by the client and echoed by the server. */
  public long id() {
    return id;
  }

  /** Returns the payload (not copied). */
  public byte[] payload() {
    return payload;
  }

  /** Returns the value of the length field for this frame: header plus payload bytes. */
  public int frameLength() {
    return HEADER_BYTES + payload.length;
  }

  @Override
  public String toString() {
    return "Frame{type=" + type + ", id=" + id + ", " + payload.length + " bytes}";
  }
}
