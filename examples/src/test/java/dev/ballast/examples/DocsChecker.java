package dev.ballast.examples;

import dev.ballast.spring.BallastSettings;
import io.grpc.LoadBalancerProvider;
import io.grpc.LoadBalancerRegistry;
import io.grpc.NameResolver.ConfigOrError;
import io.grpc.internal.JsonParser;
import java.io.IOException;
import java.io.StringReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import javax.xml.parsers.DocumentBuilderFactory;
import org.springframework.boot.context.properties.bind.BindHandler;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.bind.handler.NoUnboundElementsBindHandler;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.env.PropertiesPropertySourceLoader;
import org.springframework.boot.env.PropertySourceLoader;
import org.springframework.boot.env.YamlPropertySourceLoader;
import org.springframework.boot.grpc.client.autoconfigure.GrpcClientProperties;
import org.springframework.core.env.AbstractEnvironment;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.EnumerablePropertySource;
import org.springframework.core.env.PropertySource;
import org.springframework.core.io.ByteArrayResource;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;
import org.xml.sax.InputSource;

/**
 * Checks the code blocks of a Markdown text against the code, one block at a time, and returns
 * what disagrees, each problem naming the file and line of its block:
 *
 * <ul>
 *   <li>{@code java}: found line for line (one common indent aside) in a source file of this
 *       module (src/ or fresh-grpc-project/src/);
 *   <li>{@code properties}, {@code yaml}: every key under {@code ballast.} checked and bound by
 *       {@link BallastSettings#bind} as at start-up (an unknown key or a bad value fails); keys
 *       under {@code
 *       spring.grpc.client.} bound strictly onto Spring Boot's {@link GrpcClientProperties}; any
 *       other key fails;
 *   <li>{@code json}: parsed by gRPC's own JSON parser; a service config's {@code
 *       loadBalancingConfig} entries are handed to the registered policy of that name, whose
 *       parser must accept them;
 *   <li>{@code xml}: parsed; every {@code dev.ballast} dependency names a published artifact and,
 *       if it gives one, the project's version; a version given for gRPC or Netty is the one the
 *       build uses; a whole POM pins maven-compiler-plugin and compiles for release 17;
 *   <li>{@code bash}, {@code text}: not checked. A block without a language is a problem.
 * </ul>
 */
final class DocsChecker {

  /** The languages a block may have. */
  static final Set<String> LANGUAGES = Set.of("java", "properties", "yaml", "json", "xml", "bash",
      "text");

  /** A fenced block: its language ("" if none), first line (1-based) and text. */
  record Block(String file, int line, String language, String text) {
    String where() {
      return file + " line " + line;
    }
  }

  private final List<List<String>> sources;
  private final Set<String> artifacts;
  private final String version;
  private final Map<String, String> pinned;

  /**
   * A checker for this repository: sources under {@code examples}, artifacts and versions read
   * from the root POM and lb-bom.
   */
  static DocsChecker forRepository(Path root) {
    Path examples = root.resolve("examples");
    List<List<String>> sources = Stream.of(examples.resolve("src"),
            examples.resolve("fresh-grpc-project").resolve("src"))
        .flatMap(DocsChecker::walk).filter(Files::isRegularFile)
        .map(DocsChecker::lines).collect(Collectors.toList());
    Element parent = parse(read(root.resolve("pom.xml"))).getDocumentElement();
    Element bom = parse(read(root.resolve("lb-bom").resolve("pom.xml"))).getDocumentElement();
    Set<String> artifacts = new LinkedHashSet<>();
    artifacts.add(child(bom, "artifactId"));
    for (Element d : elements(bom, "dependency")) {
      if ("dev.ballast".equals(child(d, "groupId").replace("${project.groupId}", "dev.ballast"))) {
        artifacts.add(child(d, "artifactId"));
      }
    }
    Element properties = elements(parent, "properties").get(0);
    return new DocsChecker(sources, artifacts, child(parent, "version"), Map.of(
        "io.grpc", child(properties, "grpc.version"),
        "io.netty", child(properties, "netty.version")));
  }

  DocsChecker(List<List<String>> sources, Set<String> artifacts, String version,
      Map<String, String> pinned) {
    this.sources = sources;
    this.artifacts = artifacts;
    this.version = version;
    this.pinned = pinned;
  }

  /** Returns the fenced blocks of a Markdown text. */
  static List<Block> blocks(String file, String markdown) {
    List<Block> blocks = new ArrayList<>();
    List<String> lines = markdown.lines().collect(Collectors.toList());
    for (int i = 0; i < lines.size(); i++) {
      String open = lines.get(i);
      if (!open.startsWith("```")) {
        continue;
      }
      StringBuilder text = new StringBuilder();
      int j = i + 1;
      while (j < lines.size() && !lines.get(j).startsWith("```")) {
        text.append(lines.get(j)).append('\n');
        j++;
      }
      blocks.add(new Block(file, i + 1, open.substring(3).trim(), text.toString()));
      i = j;
    }
    return blocks;
  }

  /** Returns the problems of every block of a Markdown text; empty if all agree with the code. */
  List<String> check(String file, String markdown) {
    List<String> problems = new ArrayList<>();
    for (Block b : blocks(file, markdown)) {
      String problem = check(b);
      if (problem != null) {
        problems.add(b.where() + " (" + (b.language().isEmpty() ? "untagged" : b.language())
            + "): " + problem);
      }
    }
    return problems;
  }

  /** Returns what is wrong with one block, or null. */
  String check(Block b) {
    try {
      switch (b.language()) {
        case "java":
          return java(b.text());
        case "properties":
          return spring(new PropertiesPropertySourceLoader(), b.text());
        case "yaml":
          return spring(new YamlPropertySourceLoader(), b.text());
        case "json":
          return json(b.text());
        case "xml":
          return xml(b.text());
        case "bash":
        case "text":
          return null;
        case "":
          return "a block needs a language (one of " + new java.util.TreeSet<>(LANGUAGES) + ")";
        default:
          return "unknown language " + b.language() + " (expected: one of "
              + new java.util.TreeSet<>(LANGUAGES) + ")";
      }
    } catch (RuntimeException | IOException e) {
      return causes(e);
    }
  }

  /** The failure and its causes' messages, innermost last: a bind failure names the key there. */
  private static String causes(Throwable e) {
    StringBuilder s = new StringBuilder(e.toString());
    for (Throwable c = e.getCause(); c != null && c != c.getCause(); c = c.getCause()) {
      s.append("; caused by ").append(c);
    }
    return s.toString();
  }

  private String java(String text) {
    List<String> block = text.lines().collect(Collectors.toList());
    return sources.stream().anyMatch(file -> contains(file, block)) ? null
        : "not found line for line in any file under examples/";
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

  private static String spring(PropertySourceLoader loader, String text) throws IOException {
    List<PropertySource<?>> sources = loader.load("block",
        new ByteArrayResource(text.getBytes(StandardCharsets.UTF_8)));
    Set<String> keys = new LinkedHashSet<>();
    for (PropertySource<?> s : sources) {
      keys.addAll(List.of(((EnumerablePropertySource<?>) s).getPropertyNames()));
    }
    if (keys.isEmpty()) {
      return "holds no property";
    }
    for (String key : keys) {
      if (!key.startsWith("ballast.") && !key.startsWith("spring.grpc.client.")) {
        return "key " + key + " belongs to no properties class the docs are checked against";
      }
    }
    Binder binder = new Binder(ConfigurationPropertySources.from(sources));
    BindHandler strict = new NoUnboundElementsBindHandler(BindHandler.DEFAULT);
    // the starter's own check: every ballast.* key known, every client decoded by the model
    ConfigurableEnvironment environment = new AbstractEnvironment() {};
    sources.forEach(environment.getPropertySources()::addLast);
    BallastSettings.bind(environment);
    binder.bind("spring.grpc.client", Bindable.ofInstance(new GrpcClientProperties()), strict);
    return null;
  }

  private static String json(String text) throws IOException {
    Object parsed = JsonParser.parse(text);
    if (!(parsed instanceof Map<?, ?> map) || !map.containsKey("loadBalancingConfig")) {
      return null;
    }
    if (!(map.get("loadBalancingConfig") instanceof List<?> entries)) {
      return "loadBalancingConfig: expected a list of policies";
    }
    for (Object entry : entries) {
      if (!(entry instanceof Map<?, ?> one) || one.size() != 1) {
        return "loadBalancingConfig entry " + entry + ": expected {\"policy\": {config}}";
      }
      Map.Entry<?, ?> policy = one.entrySet().iterator().next();
      LoadBalancerProvider provider = LoadBalancerRegistry.getDefaultRegistry()
          .getProvider((String) policy.getKey());
      if (provider == null) {
        return "no gRPC policy named " + policy.getKey();
      }
      @SuppressWarnings("unchecked")
      ConfigOrError parsedConfig = provider.parseLoadBalancingPolicyConfig(
          (Map<String, ?>) policy.getValue());
      if (parsedConfig.getError() != null) {
        return "policy " + policy.getKey() + " refuses its config: "
            + parsedConfig.getError().getDescription();
      }
    }
    return null;
  }

  private String xml(String text) {
    String body = text.strip().replaceFirst("^<\\?xml[^>]*\\?>", "").strip();
    boolean pom = body.replaceFirst("^(<!--.*?-->\\s*)*", "").startsWith("<project");
    Element root = parse(pom ? body : "<snippet>" + body + "</snippet>").getDocumentElement();
    for (Element d : elements(root, "dependency")) {
      String group = child(d, "groupId");
      String artifact = child(d, "artifactId");
      String given = child(d, "version");
      if ("dev.ballast".equals(group) && !artifacts.contains(artifact)) {
        return "dev.ballast:" + artifact + " is no published artifact (expected: one of "
            + artifacts + ")";
      }
      String expected = "dev.ballast".equals(group) ? version : pinned.get(group);
      if (!given.isEmpty() && expected != null && !given.equals(expected)) {
        return group + ":" + artifact + ":" + given + " (expected version: " + expected + ")";
      }
    }
    if (pom) {
      boolean compilerPinned = elements(root, "plugin").stream()
          .anyMatch(p -> child(p, "artifactId").equals("maven-compiler-plugin")
              && !child(p, "version").isEmpty());
      List<Element> props = elements(root, "properties");
      String release = props.isEmpty() ? "" : child(props.get(0), "maven.compiler.release");
      if (!compilerPinned || !release.equals("17")) {
        return "a whole POM pins maven-compiler-plugin's version and sets"
            + " maven.compiler.release 17 (Maven 3.8's defaults compile for Java 5)";
      }
    }
    return null;
  }

  private static Document parse(String xml) {
    try {
      DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
      factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
      var builder = factory.newDocumentBuilder();
      builder.setErrorHandler(null);
      return builder.parse(new InputSource(new StringReader(xml)));
    } catch (Exception e) {
      throw new IllegalArgumentException("not well-formed XML: " + e.getMessage(), e);
    }
  }

  private static List<Element> elements(Element root, String name) {
    NodeList list = root.getElementsByTagName(name);
    List<Element> out = new ArrayList<>();
    for (int i = 0; i < list.getLength(); i++) {
      out.add((Element) list.item(i));
    }
    return out;
  }

  /** The trimmed text of a direct child element, or "" if there is none. */
  private static String child(Element parent, String name) {
    for (Node n = parent.getFirstChild(); n != null; n = n.getNextSibling()) {
      if (n instanceof Element e && e.getTagName().equals(name)) {
        return e.getTextContent().trim();
      }
    }
    return "";
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

  private static String read(Path file) {
    try {
      return Files.readString(file);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
