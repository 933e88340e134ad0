package dev.ballast.discovery.xds.internal;

import com.google.protobuf.ByteString;
import com.google.protobuf.CodedInputStream;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Parser;
import io.envoyproxy.envoy.config.endpoint.v3.ClusterLoadAssignment;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * A resource as bytes (a {@code ClusterLoadAssignment}'s, as an {@code Any} holds them), split
 * into its localities' bytes and the rest, which is parsed; the localities are parsed as they
 * are read. Bytes that protobuf's parser takes but {@code CodedInputStream.skipField} refuses
 * are read as protobuf reads them ({@link #reparsed}): protobuf-java 4's byte-array reader ends
 * a varint at its 10th byte whatever that byte's continuation bit, where {@code skipField} calls
 * it malformed (a fuzzer found such a resource).
 *
 * @param head the resource's fields other than its localities ({@code endpoints})
 * @param localities each locality's bytes
 * @param bytes the resource's bytes as given; null once re-encoded by protobuf
 */
public record PackedEds(ClusterLoadAssignment head, List<ByteString> localities,
    ByteString bytes) {

  private static final int ENDPOINTS = 2 << 3 | 2; // ClusterLoadAssignment.endpoints' tag

  /**
   * Splits a resource's bytes.
   *
   * @param where names the resource in an error
   * @throws IllegalArgumentException starting with {@code where} if the bytes are not a
   *     {@code ClusterLoadAssignment}
   */
  public static PackedEds of(ByteString bytes, String where) {
    List<ByteString> localities = new ArrayList<>();
    try {
      ByteString head = split(bytes, ENDPOINTS, localities, where);
      return new PackedEds(parse(ClusterLoadAssignment.parser(), head, where), localities, bytes);
    } catch (IllegalArgumentException unsplit) {
      return reparsed(bytes, unsplit, where);
    }
  }

  /**
   * The resource as protobuf's parser reads it, re-encoded, when reading its bytes failed with
   * {@code unparsable}.
   *
   * @throws IllegalArgumentException {@code unparsable} itself if it is no parse failure, if the
   *     bytes are already protobuf's encoding, or if protobuf refuses them too
   */
  PackedEds reparsed(IllegalArgumentException unparsable) {
    return reparsed(bytes, unparsable, "EDS resource " + clusterName());
  }

  private static PackedEds reparsed(ByteString bytes, IllegalArgumentException unparsable,
      String where) {
    if (bytes == null || !(unparsable.getCause() instanceof InvalidProtocolBufferException)) {
      throw unparsable;
    }
    ClusterLoadAssignment cla;
    try {
      cla = ClusterLoadAssignment.parseFrom(bytes);
    } catch (InvalidProtocolBufferException e) {
      throw unparsable;
    }
    List<ByteString> localities = new ArrayList<>();
    ByteString head = split(cla.toByteString(), ENDPOINTS, localities, where);
    return new PackedEds(parse(ClusterLoadAssignment.parser(), head, where), localities, null);
  }

  /** Packs a parsed resource. */
  public static PackedEds of(ClusterLoadAssignment cla) {
    return of(cla.toByteString(), "EDS resource " + cla.getClusterName());
  }

  /** The resource's {@code cluster_name}. */
  public String clusterName() {
    return head.getClusterName();
  }

  // copies the fields of a message other than the tag's to the bytes returned (as they are, so
  // that parsing them rejects what protobuf would), and adds each of the tag's values
  // (length-delimited) to values as a slice of the message's bytes
  static ByteString split(ByteString message, int tag, List<ByteString> values, String where) {
    try {
      CodedInputStream in = message.newCodedInput();
      in.enableAliasing(true);
      ByteString.Output rest = ByteString.newOutput();
      int start = 0;
      for (int t = in.readTag(); t != 0; t = in.readTag()) {
        if (t == tag) {
          values.add(in.readBytes());
        } else {
          in.skipField(t);
          message.substring(start, in.getTotalBytesRead()).writeTo(rest);
        }
        start = in.getTotalBytesRead();
      }
      return rest.toByteString();
    } catch (IOException e) { // InvalidProtocolBufferException: the output is in memory
      throw new IllegalArgumentException(where + ": unparsable (" + e.getMessage() + ")", e);
    }
  }

  // the bytes parsed as a message of the parser's type
  static <T> T parse(Parser<T> parser, ByteString bytes, String where) {
    try {
      return parser.parseFrom(bytes);
    } catch (InvalidProtocolBufferException e) {
      throw new IllegalArgumentException(where + ": unparsable (" + e.getMessage() + ")", e);
    }
  }
}
