package dev.ballast.examples;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.examples.DocsChecker.Block;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every code block of README.md and docs/*.md agrees with the code ({@link DocsChecker} says how
 * each language is checked): to change a snippet, change the example, the starter or the policy
 * and paste it into the page. The other tests here show that the checker fails on what it must.
 */
class DocsSnippetsTest {

  private static final Path ROOT = Path.of("..");
  private static final DocsChecker CHECKER = DocsChecker.forRepository(ROOT);

  @Test
  void everyBlockOfReadmeAndDocsAgreesWithTheCode() throws IOException {
    List<String> problems = new ArrayList<>();
    Map<String, Integer> kinds = new TreeMap<>();
    for (Path page : pages()) {
      String name = ROOT.relativize(page).toString();
      String text = Files.readString(page);
      problems.addAll(CHECKER.check(name, text));
      DocsChecker.blocks(name, text).forEach(b -> kinds.merge(b.language(), 1, Integer::sum));
    }
    assertThat(problems).as("blocks that disagree with the code").isEmpty();
    // Every kind is present, so that a checker that silently matched nothing would show here.
    assertThat(kinds).as("blocks by language").containsKeys("java", "properties", "yaml",
        "json", "xml");
    assertThat(kinds.get("java")).isGreaterThanOrEqualTo(10);
  }

  private static List<Path> pages() throws IOException {
    try (Stream<Path> docs = Files.list(ROOT.resolve("docs"))) {
      List<Path> pages = new ArrayList<>(List.of(ROOT.resolve("README.md")));
      pages.addAll(docs.filter(p -> p.toString().endsWith(".md")).sorted()
          .collect(Collectors.toList()));
      assertThat(pages).hasSizeGreaterThan(5);
      return pages;
    }
  }

  @Test
  void aChangedJavaSnippetIsCaught() {
    List<String> file = List.of("class A {", "  void f() {", "    call(1);", "  }", "}");
    assertThat(DocsChecker.contains(file, List.of("void f() {", "  call(1);", "}"))).isTrue();
    assertThat(DocsChecker.contains(file, List.of("void f() {", "  call(2);", "}"))).isFalse();
    assertThat(DocsChecker.contains(file, List.of("void f() {", "call(1);", "}"))).isFalse();
    assertThat(problem("java", "ManagedChannelBuilder.forTarget(\"ballast:///x\").build();\n"))
        .contains("not found line for line");
  }

  @Test
  void aMisspeltPropertyFails() {
    assertThat(problem("properties", "ballast.clients.orders.endpoints[0]=10.0.0.1:7000\n"
        + "ballast.clients.orders.balancer=vnswrr\n")).isNull();
    assertThat(problem("properties", "ballast.clients.orders.endpoints[0]=10.0.0.1:7000\n"
        + "ballast.clients.orders.balancr=vnswrr\n")).contains("balancr");
    assertThat(problem("properties", "ballast.clients.orders.endpoints[0]=10.0.0.1:7000\n"
        + "ballast.clients.orders.pool.max-conections=8\n")).contains("max-conections");
    assertThat(problem("properties", "ballast.defaults.max-attempts=3\nballast.metric.enabled=false\n"))
        .contains("metric");
    assertThat(problem("properties", "management.metrics.enabled=true\n"))
        .contains("belongs to no properties class");
    assertThat(problem("properties", "spring.grpc.client.channel.orders.target=ballast://orders\n"
        + "spring.grpc.client.channel.orders.tagret=x\n")).contains("tagret");
  }

  @Test
  void aMisspeltYamlKeyOrABadValueFails() {
    assertThat(problem("yaml", "ballast:\n  clients:\n    orders:\n      endpoints:\n"
        + "        - 10.0.0.1:7000;weight=3\n      timeout: 2s\n")).isNull();
    assertThat(problem("yaml", "ballast:\n  clients:\n    orders:\n      endpoints:\n"
        + "        - 10.0.0.1:7000\n      timout: 2s\n")).contains("timout");
    assertThat(problem("yaml", "ballast:\n  clients:\n    orders:\n      endpoints:\n"
        + "        - 10.0.0.1:7000;weight=-1\n")).contains("weight: -1");
    assertThat(problem("yaml", "ballast:\n  clients:\n    orders:\n      endpoints:\n"
        + "        - 10.0.0.1:7000\n      balancer: fastest\n")).contains("fastest");
  }

  @Test
  void badJsonOrAServiceConfigThePolicyRefusesFails() {
    assertThat(problem("json", "{\"loadBalancingConfig\": [{\"p2c_peak_ewma\": "
        + "{\"decayTime\": \"5s\"}}]}")).isNull();
    assertThat(problem("json", "{\"loadBalancingConfig\": [{\"p2c_peak_ewma\": {}}]")).isNotNull();
    assertThat(problem("json", "{\"loadBalancingConfig\": [{\"p2c_peak_ewma\": "
        + "{\"decayTime\": \"10 parsecs\"}}]}")).contains("decayTime");
    assertThat(problem("json", "{\"loadBalancingConfig\": [{\"p2c_peak_ewma\": "
        + "{\"decay\": \"5s\"}}]}")).contains("decay");
    assertThat(problem("json", "{\"loadBalancingConfig\": [{\"fastest\": {}}]}"))
        .contains("no gRPC policy named fastest");
  }

  @Test
  void aWrongArtifactOrVersionFails() {
    String dependency = "<dependency>\n  <groupId>dev.ballast</groupId>\n"
        + "  <artifactId>%s</artifactId>%s\n</dependency>\n";
    assertThat(problem("xml", String.format(dependency, "lb-grpc", ""))).isNull();
    assertThat(problem("xml", String.format(dependency, "lb-grpc",
        "\n  <version>0.1.0-SNAPSHOT</version>"))).isNull();
    assertThat(problem("xml", String.format(dependency, "lb-gprc", "")))
        .contains("lb-gprc is no published artifact");
    assertThat(problem("xml", String.format(dependency, "benchmarks", "")))
        .contains("benchmarks is no published artifact");
    assertThat(problem("xml", String.format(dependency, "lb-grpc", "\n  <version>0.2.0</version>")))
        .contains("expected version");
    assertThat(problem("xml", "<dependency><groupId>io.grpc</groupId>"
        + "<artifactId>grpc-netty-shaded</artifactId><version>1.0.0</version></dependency>"))
        .contains("expected version");
    assertThat(problem("xml", "<dependency><groupId>dev.ballast</groupId>")).contains("XML");
    assertThat(problem("xml", "<project><modelVersion>4.0.0</modelVersion></project>"))
        .contains("maven-compiler-plugin");
  }

  @Test
  void aBlockWithoutLanguageFailsAndShellBlocksPass() {
    assertThat(problem("", "./ballast demo\n")).contains("needs a language");
    assertThat(problem("sh", "./ballast demo\n")).contains("unknown language");
    assertThat(problem("bash", "./ballast demo\n")).isNull();
    assertThat(problem("text", "anything at all {\n")).isNull();
    List<Block> blocks = DocsChecker.blocks("page.md", "a\n```\nx\n```\n```java\ny\n```\n");
    assertThat(blocks).extracting(Block::language, Block::line).containsExactly(
        org.assertj.core.groups.Tuple.tuple("", 2), org.assertj.core.groups.Tuple.tuple("java", 5));
    assertThat(Set.copyOf(CHECKER.check("page.md", "```\nx\n```\n"))).singleElement()
        .asString().startsWith("page.md line 1 (untagged)");
  }

  private static String problem(String language, String text) {
    return CHECKER.check(new Block("page.md", 1, language, text));
  }
}
