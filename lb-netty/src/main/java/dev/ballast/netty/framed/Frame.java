package dev.ballast.netty.framed;

import java.util.Objects;

/**
 * One message of the framed protocol. On the wire: a 4-byte big-endian length (of everything
 * after it), a 1-byte {@linkplain #type() type}, an 8-byte request id, then the payload.
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

  private final byte type;
  private final long id;
  private final byte[] payload;

  /**
   * Creates a frame.
   *
   * @throws IllegalArgumentException if the type is not {@link #REQUEST}, {@link #RESPONSE},
   *     {@link #ERROR} or {@link #PING}
   */
  public Frame(byte type, long id, byte[] payload) {
    if (type < REQUEST || type > PING) {
      throw new IllegalArgumentException("type: " + type + " (expected: 1, 2, 3 or 4)");
    }
    this.type = type;
    this.id = id;
    this.payload = Objects.requireNonNull(payload, "payload");
  }

  /** Returns the type: {@link #REQUEST}, {@link #RESPONSE}, {@link #ERROR} or {@link #PING}. */
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
