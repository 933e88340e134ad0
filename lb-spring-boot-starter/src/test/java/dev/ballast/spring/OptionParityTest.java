package dev.ballast.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.ballast.core.BalancerConfig;
import dev.ballast.core.policy.ConfiguredPolicy;
import dev.ballast.core.policy.CoreOptions;
import dev.ballast.core.load.LoadOptions;
import dev.ballast.core.config.Option;
import dev.ballast.core.config.OptionException;
import dev.ballast.core.config.OptionSet;
import dev.ballast.grpc.AlgorithmLoadBalancerProvider;
import dev.ballast.grpc.internal.LabelSubsetPolicyConfig;
import dev.ballast.grpc.internal.PolicyConfig;
import dev.ballast.netty.BallastClient;
import dev.ballast.netty.ClientOptions;
import dev.ballast.spring.internal.PropertyKeys;
import io.grpc.LoadBalancerRegistry;
import io.grpc.NameResolver.ConfigOrError;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * Generated from the configuration model: for every option a client takes ({@link
 * ClientOptions#CLIENT}, which holds lb-core's {@link CoreOptions} and {@link LoadOptions} too),
 * lb-netty's builder, Spring properties and, for lb-core's options, a gRPC service config give
 * the same value for the option's example, the same default, and the same expectation for its
 * bad example. An
 * option added to the model is driven through every front end here; one that a front end
 * cannot read fails.
 */
class OptionParityTest {

  private static final String CLIENT = "ballast.clients.parity";

  private final ApplicationContextRunner runner = new ApplicationContextRunner()
      .withConfiguration(AutoConfigurations.of(BallastAutoConfiguration.class));

  static Stream<Option<BallastClient.Builder<?, ?>, BallastClient.Builder<?, ?>, ?>> options() {
    return ClientOptions.CLIENT.options().stream();
  }

  /** The lb-core set an option belongs to, as gRPC reads it, or null if gRPC does not. */
  private static OptionSet<?, ?> grpcSet(String name) {
    if (AlgorithmLoadBalancerProvider.OPTIONS.find(name) != null) {
      return AlgorithmLoadBalancerProvider.OPTIONS;
    }
    if (CoreOptions.HASH.find(name) != null) {
      return CoreOptions.HASH;
    }
    if (LoadOptions.WEIGHTED_ROUND_ROBIN.find(name) != null) {
      return LoadOptions.WEIGHTED_ROUND_ROBIN;
    }
    return name.startsWith("subset.") ? CoreOptions.SUBSET : null;
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("options")
  void sameValueDefaultAndErrorInEveryFrontEnd(
      Option<BallastClient.Builder<?, ?>, BallastClient.Builder<?, ?>, ?> o) {
    // the default
    Object builderDefault = o.get(BallastClient.framed());
    if (!o.name().equals("endpoints")) {
      assertThat(spring(o, null)).as("Spring's default").isEqualTo(builderDefault);
    }
    if (grpcSet(o.name()) != null && !o.name().equals("subset.selectors")) {
      // (label_subset requires selectors: it has no default)
      assertThat(grpc(o, null)).as("gRPC's default").isEqualTo(builderDefault);
    }
    // the example's value
    if (o.example() != null) {
      BallastClient.Builder<?, ?> b = BallastClient.framed();
      ClientOptions.CLIENT.apply(b, Map.of(o.name(), o.example()));
      Object value = o.get(b);
      assertThat(value).as("builder's value").isEqualTo(o.type().parse(o.example()));
      assertThat(spring(o, o.example())).as("Spring's value").isEqualTo(value);
      if (grpcSet(o.name()) != null) {
        assertThat(grpc(o, o.example())).as("gRPC's value").isEqualTo(value);
      }
    }
    // the bad example's error: the same expectation, each front end naming the option its way
    OptionException e = (OptionException) catchThrowable(
        () -> ClientOptions.CLIENT.apply(BallastClient.framed(),
            Map.of(o.name(), o.badExample())));
    assertThat(e).as("builder's error").isNotNull();
    // the option, or a key inside its value (policy.percent) that it names
    assertThat(e.option()).matches(n -> n.equals(o.name()) || n.startsWith(o.name() + "."),
        "is " + o.name() + " or a key inside it");
    String problem = e.problem();
    String expected = problem.substring(problem.indexOf("expected: ") + 10, problem.length() - 1);
    runner.withPropertyValues(properties(o, o.badExample())).run(ctx -> {
      assertThat(ctx).hasFailed();
      Throwable t = ctx.getStartupFailure();
      while (!(t instanceof InvalidBallastPropertyException) && t.getCause() != null) {
        t = t.getCause();
      }
      InvalidBallastPropertyException s = (InvalidBallastPropertyException) t;
      assertThat(s.property()).as("Spring's property").isEqualTo(
          CLIENT + "." + PropertyKeys.dashed(e.option()));
      // the options it names in their property form (private-key, not privateKey)
      assertThat(s.expected()).as("Spring's expectation")
          .isEqualTo(PropertyKeys.springNames(expected));
    });
    if (grpcSet(o.name()) != null) {
      ConfigOrError c = parse(o, o.badExample());
      assertThat(c.getError()).as("gRPC's error").isNotNull();
      assertThat(c.getError().getDescription()).as("gRPC's error")
          .contains(o.name().replaceFirst("^subset\\.", "") + ": ")
          .contains("expected: " + expected + ")");
    }
  }

  /** Every option set of the model is reached by the client options (and so by Spring). */
  @Test
  void everyOptionSetOfTheModelIsAClientOption() throws Exception {
    List<String> client = ClientOptions.CLIENT.names();
    List<String> missing = new ArrayList<>();
    for (Class<?> holder : List.of(CoreOptions.class, LoadOptions.class, ClientOptions.class)) {
      for (Field f : holder.getFields()) {
        if (Modifier.isStatic(f.getModifiers()) && f.get(null) instanceof OptionSet<?, ?> set
            && set != ClientOptions.CLIENT) {
          String prefix = set == CoreOptions.BALANCER || set == CoreOptions.HASH
              || set == LoadOptions.WEIGHTED_ROUND_ROBIN ? ""
              : Character.toLowerCase(f.getName().charAt(0))
                  + toCamel(f.getName().substring(1)) + ".";
          for (String n : set.names()) {
            if (!client.contains(prefix + n)) {
              missing.add(holder.getSimpleName() + "." + f.getName() + ": " + prefix + n);
            }
          }
        }
      }
    }
    assertThat(missing).as("model options no client option reaches").isEmpty();
    // and gRPC reads every lb-core option but panic picks, which a gRPC picker never makes
    assertThat(CoreOptions.BALANCER.names()).filteredOn(n -> grpcSet(n) == null)
        .containsExactly("panicPick");
  }

  private static String toCamel(String upperSnake) {
    StringBuilder b = new StringBuilder();
    boolean up = false;
    for (char c : upperSnake.toCharArray()) {
      if (c == '_') {
        up = true;
      } else {
        b.append(up ? c : Character.toLowerCase(c));
        up = false;
      }
    }
    return b.toString();
  }

  /** Spring: the client's properties with the option set (or not), then lb-netty's builder. */
  private Object spring(Option<BallastClient.Builder<?, ?>, BallastClient.Builder<?, ?>, ?> o,
      Object value) {
    AtomicReference<Object> got = new AtomicReference<>();
    runner.withPropertyValues(properties(o, value)).run(ctx -> {
      assertThat(ctx).hasNotFailed();
      ClientSettings s = ctx.getBean(BallastSettings.class).get("parity");
      BallastClient.Builder<?, ?> b = BallastClient.framed();
      BallastClients.apply(s, b);
      got.set(o.get(b));
    });
    return got.get();
  }

  private static String[] properties(Option<?, ?, ?> o, Object value) {
    List<String> props = new ArrayList<>();
    String key = CLIENT + "." + PropertyKeys.dashed(o.name());
    if (!o.name().equals("endpoints")) {
      props.add(CLIENT + ".endpoints=127.0.0.1:1");
    }
    if (value instanceof List<?> list) {
      for (int i = 0; i < list.size(); i++) {
        props.add(key + "[" + i + "]=" + list.get(i));
      }
    } else if (value instanceof Map<?, ?> map) {
      map.forEach((k, v) -> props.add(key + "." + k + "=" + v));
    } else if (value != null) {
      props.add(key + "=" + value);
    }
    return props.toArray(String[]::new);
  }

  /** gRPC: the option in a service config of a policy that reads it. */
  private static Object grpc(Option<?, ?, ?> o, Object value) {
    ConfigOrError c = parse(o, value);
    assertThat(c.getError()).as("gRPC's error for %s", value).isNull();
    OptionSet<?, ?> set = grpcSet(o.name());
    String name = o.name().replaceFirst("^subset\\.", "");
    Object config = c.getConfig();
    Object model = set == CoreOptions.SUBSET ? ((LabelSubsetPolicyConfig) config).subset()
        : set == CoreOptions.HASH ? ((PolicyConfig) config).hash()
        : set == LoadOptions.WEIGHTED_ROUND_ROBIN ? ((PolicyConfig) config).own().config()
        : ((PolicyConfig) config).balancer();
    return get(set.find(name), model);
  }

  @SuppressWarnings("unchecked")
  private static <C> Object get(Option<C, ?, ?> o, Object config) {
    return o.get((C) config);
  }

  private static ConfigOrError parse(Option<?, ?, ?> o, Object value) {
    OptionSet<?, ?> set = grpcSet(o.name());
    String name = o.name().replaceFirst("^subset\\.", "");
    Map<String, Object> json = new LinkedHashMap<>();
    String policy = set == CoreOptions.SUBSET ? "label_subset"
        : set == CoreOptions.HASH ? "maglev" : "p2c_peak_ewma";
    if (set == CoreOptions.SUBSET && !name.equals("selectors")) {
      json.put("selectors", List.of(List.of("zone")));
    }
    if (value != null) {
      // as a service config writes it: nested groups ({"slowStart": {"window": ...}})
      Map<String, Object> at = json;
      String[] parts = name.split("\\.");
      for (int i = 0; i < parts.length - 1; i++) {
        Map<String, Object> next = new LinkedHashMap<>();
        at.put(parts[i], next);
        at = next;
      }
      at.put(parts[parts.length - 1], value);
    }
    if (set == LoadOptions.WEIGHTED_ROUND_ROBIN) {
      // the report-driven policies are lb-grpc-orca's: their config is lb-grpc's PolicyConfig
      return PolicyConfig.parse(ConfiguredPolicy.named("p2c_utilization"), "p2c_utilization",
          BalancerConfig.defaults(), json);
    }
    return LoadBalancerRegistry.getDefaultRegistry().getProvider(policy)
        .parseLoadBalancingPolicyConfig(json);
  }
}
