package dev.ballast.bench.grpc;

import io.grpc.MethodDescriptor;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;

/** A gRPC marshaller of raw bytes, for the benchmarks' and the soak's echo methods. */
public enum ByteMarshaller implements MethodDescriptor.Marshaller<byte[]> {
  /** The one instance. */
  INSTANCE;

  @Override
  public InputStream stream(byte[] value) {
    return new ByteArrayInputStream(value);
  }

  @Override
  public byte[] parse(InputStream stream) {
    try {
      return stream.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
