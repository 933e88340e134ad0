package dev.ballast.grpc.orca;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * lb-grpc-orca extends lb-grpc through its SPI ({@code dev.ballast.grpc.spi}) only: no compiled
 * class of this module names a type of lb-grpc's {@code internal} package, which may change
 * without notice. Reads the class files' constant pools, where every referenced class is named.
 */
class SpiOnlyTest {

  @Test
  void noClassOfThisModuleNamesLbGrpcInternals() throws IOException {
    Path classes = classesOf(dev.ballast.grpc.orca.internal.OrcaLoadBalancer.class);
    assertThat(classes).isDirectory();
    byte[] internal = "dev/ballast/grpc/internal/".getBytes(StandardCharsets.UTF_8);
    List<String> offenders;
    try (Stream<Path> files = Files.walk(classes)) {
      offenders = files.filter(f -> f.toString().endsWith(".class"))
          .filter(f -> contains(read(f), internal))
          .map(f -> classes.relativize(f).toString())
          .collect(Collectors.toList());
    }
    assertThat(offenders).as("classes naming dev.ballast.grpc.internal types").isEmpty();
  }

  // the directory (or jar: then this test has nothing to read and fails) the module's classes
  // were loaded from, wherever the build runs the test
  private static Path classesOf(Class<?> type) {
    try {
      return Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI());
    } catch (java.net.URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }

  private static byte[] read(Path f) {
    try {
      return Files.readAllBytes(f);
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private static boolean contains(byte[] haystack, byte[] needle) {
    outer:
    for (int i = 0; i + needle.length <= haystack.length; i++) {
      for (int j = 0; j < needle.length; j++) {
        if (haystack[i + j] != needle[j]) {
          continue outer;
        }
      }
      return true;
    }
    return false;
  }
}
