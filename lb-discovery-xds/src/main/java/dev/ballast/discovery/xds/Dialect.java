package dev.ballast.discovery.xds;

import com.google.protobuf.Any;
import com.google.protobuf.Message;
import dev.ballast.discovery.xds.internal.EdsEntries;
import dev.ballast.discovery.xds.internal.PackedEds;
import io.grpc.Channel;
import io.grpc.stub.StreamObserver;

/**
 * How one ADS stream speaks: State of the World ({@link Sotw}) or incremental ({@link Delta}). A
 * dialect builds the requests (the subscription, ACKs and NACKs) and reads the responses; {@link
 * XdsSource} owns the rest (the stream's life, backoff, NACK spacing, the listener), the same for
 * both. Requests and responses are {@code Message}s of the dialect's own types. Used under the
 * source's lock.
 */
abstract class Dialect {

  static final int INVALID_ARGUMENT = 3; // google.rpc.Code

  final XdsBootstrap bootstrap;
  final String cluster;

  Dialect(XdsBootstrap bootstrap, String cluster) {
    this.bootstrap = bootstrap;
    this.cluster = cluster;
  }

  /** Opens a stream on the channel, its responses to {@code responses}. */
  abstract StreamObserver<Message> open(Channel channel, StreamObserver<Message> responses);

  /** The first request of a stream. */
  abstract Message subscribe();

  /**
   * Reads a response: null if it is of another type (nothing to answer), else what it says of
   * the cluster.
   *
   * @throws IllegalArgumentException naming why the response is to be rejected
   */
  abstract Read read(Message response);

  /** Takes the response as accepted and returns its ACK. */
  abstract Message accept(Message response);

  /** Returns the NACK of a response, naming why. */
  abstract Message reject(Message response, String why);

  /** The version of the last accepted response, empty before the first. */
  abstract String acceptedVersion();

  /**
   * What a response says of the cluster.
   *
   * @param resource the cluster's resource, or null if the response does not hold it
   * @param removed whether the response removes it (Delta only)
   */
  record Read(PackedEds resource, boolean removed) {
    static final Read NOTHING = new Read(null, false);
  }

  /**
   * Checks a resource's type and splits its bytes (its endpoints are parsed when read, only
   * those that changed).
   */
  static PackedEds unpack(Any any, String where) {
    if (!any.getTypeUrl().equals(EdsEntries.TYPE_URL)) {
      throw new IllegalArgumentException(where + ": type " + any.getTypeUrl() + " (expected: "
          + EdsEntries.TYPE_URL + ")");
    }
    return PackedEds.of(any.getValue(), where);
  }

  static com.google.rpc.Status invalid(String why) {
    return com.google.rpc.Status.newBuilder().setCode(INVALID_ARGUMENT).setMessage(why).build();
  }

  // an observer of one message type as one of another: each dialect passes only its own
  @SuppressWarnings({"unchecked", "rawtypes"})
  static <T> StreamObserver<T> untyped(StreamObserver<?> observer) {
    return (StreamObserver) observer;
  }
}
