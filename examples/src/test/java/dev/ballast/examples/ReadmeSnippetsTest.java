package dev.ballast.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every {@code java} and {@code yaml} block of README.md is found in a source file of this module
 * (src/ or fresh-grpc-project/src/), line for line: the block may sit indented in the file (by
 * the same amount on every line) and nothing else may differ. So a README snippet is code that
 * compiles, and the examples' tests run most of it. To change a snippet, change the example and
 * paste it into the README.
 */
class ReadmeSnippetsTest {

  private static final Pattern BLOCK = Pattern.compile("(?m)^```(java|yaml)\\n(.*?)^```$",
      Pattern.DOTALL);

  @Test
  void everyReadmeSnippetIsInAnExample() throws IOException {
    String readme = Files.readString(Path.of("..", "README.md"));
    Map<Path, List<String>> sources = sources(Path.of("src"), Path.of("fresh-grpc-project", "src"));
    List<String> blocks = new ArrayList<>();
    List<String> missing = new ArrayList<>();
    Matcher m = BLOCK.matcher(readme);
    while (m.find()) {
      String block = m.group(2);
      blocks.add(block);
      List<String> lines = block.lines().collect(Collectors.toList());
      if (sources.values().stream().noneMatch(file -> contains(file, lines))) {
        int line = readme.substring(0, m.start()).split("\n", -1).length;
        missing.add("README.md line " + line + ":\n" + block);
      }
    }
    assertThat(blocks).as("java blocks in README.md").hasSizeGreaterThanOrEqualTo(8);
    assertThat(missing).as("README snippets found in no example file").isEmpty();
  }

  @Test
  void aChangedSnippetIsCaught() {
    List<String> file = List.of("class A {", "  void f() {", "    call(1);", "  }", "}");
    assertThat(contains(file, List.of("void f() {", "  call(1);", "}"))).isTrue();
    assertThat(contains(file, List.of("void f() {", "  call(2);", "}"))).isFalse();
    assertThat(contains(file, List.of("void f() {", "call(1);", "}"))).isFalse();
  }

  /** Whether {@code block} equals consecutive lines of {@code file} less one common indent. */
  static boolean contains(List<String> file, List<String> block) {
    if (block.isEmpty()) {
      return true;
    }
    for (int start = 0; start + block.size() <= file.size(); start++) {
      String first = file.get(start);
      if (!first.endsWith(block.get(0)) || !first.substring(0, first.length()
          - block.get(0).length()).isBlank()) {
        continue;
      }
      String indent = first.substring(0, first.length() - block.get(0).length());
      boolean all = true;
      for (int i = 1; i < block.size() && all; i++) {
        String want = block.get(i);
        String have = file.get(start + i);
        all = want.isEmpty() ? have.isBlank() : have.equals(indent + want);
      }
      if (all) {
        return true;
      }
    }
    return false;
  }

  private static Map<Path, List<String>> sources(Path... roots) throws IOException {
    try (Stream<Path> files = Stream.of(roots).flatMap(ReadmeSnippetsTest::walk)) {
      return files.filter(Files::isRegularFile)
          .collect(Collectors.toMap(p -> p, ReadmeSnippetsTest::lines));
    }
  }

  private static Stream<Path> walk(Path root) {
    try {
      return Files.walk(root);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static List<String> lines(Path file) {
    try {
      return Files.readAllLines(file);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
