package dev.ballast.core.arch;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.core.Balancer;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.spi.ToolProvider;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * lb-core's packages form no cycle, and {@code config} (options and their codec) depends on
 * nothing above it: read from the compiled classes with the JDK's {@code jdeps}, so a
 * dependency through a method body counts as one through an import. A type deprecated for
 * removal (the alias of a moved type, kept for one version) is left out: it points back to
 * where its type went by design, and goes with the next version.
 */
class PackageCycleTest {

  private static final Pattern EDGE =
      Pattern.compile("^\\s+(dev\\.ballast\\.core\\S*)\\s+->\\s+(dev\\.ballast\\.core\\S*)\\s");

  /** Package to the packages it depends on, each with one class edge that shows it. */
  private static final Map<String, Map<String, String>> GRAPH = new TreeMap<>();

  @BeforeAll
  static void readClasses() throws Exception {
    Path classes = Path.of(Balancer.class.getProtectionDomain().getCodeSource().getLocation()
        .toURI());
    StringWriter out = new StringWriter();
    int rc = ToolProvider.findFirst("jdeps").orElseThrow().run(new PrintWriter(out),
        new PrintWriter(out), "-verbose:class", "-filter:none", classes.toString());
    assertThat(rc).as(out.toString()).isZero();
    for (String line : out.toString().split("\n")) {
      Matcher m = EDGE.matcher(line);
      if (!m.find() || deprecatedForRemoval(m.group(1))) {
        continue;
      }
      String from = packageOf(m.group(1));
      String to = packageOf(m.group(2));
      if (!from.equals(to)) {
        GRAPH.computeIfAbsent(from, k -> new TreeMap<>())
            .putIfAbsent(to, m.group(1) + " -> " + m.group(2));
      }
    }
    assertThat(GRAPH).as("jdeps read lb-core's classes").containsKey("dev.ballast.core");
  }

  @Test
  void packagesFormNoCycle() {
    List<String> cycles = new ArrayList<>();
    for (Set<String> component : stronglyConnected()) {
      if (component.size() > 1) {
        StringBuilder why = new StringBuilder(component.toString());
        for (String p : component) {
          GRAPH.getOrDefault(p, Map.of()).forEach((q, edge) -> {
            if (component.contains(q)) {
              why.append("\n  ").append(edge);
            }
          });
        }
        cycles.add(why.toString());
      }
    }
    assertThat(cycles).as("package cycles in lb-core, with the class edges that make them")
        .isEmpty();
  }

  @Test
  void configDependsOnNothingAboveIt() {
    assertThat(GRAPH.getOrDefault("dev.ballast.core.config", Map.of()))
        .as("lb-core packages that dev.ballast.core.config depends on, with a class edge each")
        .containsOnlyKeys(GRAPH.getOrDefault("dev.ballast.core.config", Map.of()).keySet()
            .stream().filter("dev.ballast.core.internal"::equals).toList());
    assertThat(GRAPH.getOrDefault("dev.ballast.core.internal", Map.of()))
        .as("lb-core packages that dev.ballast.core.internal depends on, with a class edge each")
        .isEmpty();
  }

  private static String packageOf(String className) {
    return className.substring(0, className.lastIndexOf('.'));
  }

  private static boolean deprecatedForRemoval(String className) {
    try {
      Deprecated d = Class.forName(className.replaceFirst("\\$.*", ""), false,
          PackageCycleTest.class.getClassLoader()).getAnnotation(Deprecated.class);
      return d != null && d.forRemoval();
    } catch (ClassNotFoundException e) {
      throw new AssertionError(className, e);
    }
  }

  /** Tarjan's strongly connected components over {@link #GRAPH}. */
  private static List<Set<String>> stronglyConnected() {
    Map<String, Integer> index = new HashMap<>();
    Map<String, Integer> low = new HashMap<>();
    Deque<String> stack = new ArrayDeque<>();
    List<Set<String>> out = new ArrayList<>();
    for (String p : GRAPH.keySet()) {
      if (!index.containsKey(p)) {
        visit(p, index, low, stack, out);
      }
    }
    return out;
  }

  private static void visit(String p, Map<String, Integer> index, Map<String, Integer> low,
      Deque<String> stack, List<Set<String>> out) {
    index.put(p, index.size());
    low.put(p, index.get(p));
    stack.push(p);
    for (String q : GRAPH.getOrDefault(p, Map.of()).keySet()) {
      if (!index.containsKey(q)) {
        visit(q, index, low, stack, out);
        low.put(p, Math.min(low.get(p), low.get(q)));
      } else if (stack.contains(q)) {
        low.put(p, Math.min(low.get(p), index.get(q)));
      }
    }
    if (low.get(p).equals(index.get(p))) {
      Set<String> component = new TreeSet<>();
      String q;
      do {
        q = stack.pop();
        component.add(q);
      } while (!q.equals(p));
      out.add(component);
    }
  }
}
