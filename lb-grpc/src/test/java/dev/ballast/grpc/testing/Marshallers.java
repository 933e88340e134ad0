package dev.ballast.grpc.testing;

import io.grpc.MethodDescriptor;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/**
 * The message marshallers the test servers of every module use (lb-grpc's test jar): UTF-8 text
 * and raw bytes, so that a test method needs no protobuf.
 */
public final class Marshallers {

  /** UTF-8 text. */
  public static final MethodDescriptor.Marshaller<String> TEXT =
      new MethodDescriptor.Marshaller<>() {
        @Override
        public InputStream stream(String value) {
          return new ByteArrayInputStream(value.getBytes(StandardCharsets.UTF_8));
        }

        @Override
        public String parse(InputStream stream) {
          return new String(read(stream), StandardCharsets.UTF_8);
        }
      };

  /** Raw bytes. */
  public static final MethodDescriptor.Marshaller<byte[]> BYTES =
      new MethodDescriptor.Marshaller<>() {
        @Override
        public InputStream stream(byte[] value) {
          return new ByteArrayInputStream(value);
        }

        @Override
        public byte[] parse(InputStream stream) {
          return read(stream);
        }
      };

  private static byte[] read(InputStream stream) {
    try {
      return stream.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private Marshallers() {}
}
