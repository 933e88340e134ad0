package dev.ballast.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.core.Endpoint;
import io.grpc.EquivalentAddressGroup;
import io.grpc.NameResolver;
import io.grpc.Status;
import io.grpc.SynchronizationContext;
import java.net.InetSocketAddress;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The {@code ballast} scheme: fixed lists, registry names, bad targets. */
class NameResolverTest {

  private final SynchronizationContext syncContext = new SynchronizationContext((t, e) -> {
    throw new AssertionError(e);
  });
  private final NameResolver.Args args = NameResolver.Args.newBuilder()
      .setDefaultPort(443)
      .setProxyDetector(addr -> null)
      .setSynchronizationContext(syncContext)
      .setServiceConfigParser(new NameResolver.ServiceConfigParser() {
        @Override
        public NameResolver.ConfigOrError parseServiceConfig(Map<String, ?> rawServiceConfig) {
          return NameResolver.ConfigOrError.fromConfig(rawServiceConfig);
        }
      })
      .build();

  private final List<List<EquivalentAddressGroup>> results = new ArrayList<>();
  private final List<Status> errors = new ArrayList<>();
  private final NameResolver.Listener2 listener = new NameResolver.Listener2() {
    @Override
    public void onResult(NameResolver.ResolutionResult result) {
      results.add(result.getAddressesOrError().getValue());
    }

    @Override
    public void onError(Status error) {
      errors.add(error);
    }
  };

  private NameResolver resolver(BallastNameResolverProvider provider, String target) {
    return provider.newNameResolver(URI.create(target), args);
  }

  private void start(NameResolver r) {
    syncContext.execute(() -> r.start(listener));
  }

  @Test
  void fixedListBecomesGroupsWithWeightAndLabels() {
    NameResolver r = resolver(new BallastNameResolverProvider(),
        "ballast:///10.0.0.1:443;weight=3;zone=a,10.0.0.2:8443;zone=b");

    start(r);

    assertThat(r.getServiceAuthority()).isEqualTo("10.0.0.1:443");
    assertThat(results).hasSize(1);
    List<EquivalentAddressGroup> groups = results.get(0);
    assertThat(groups).hasSize(2);
    assertThat(groups.get(0).getAddresses()).containsExactly(new InetSocketAddress("10.0.0.1", 443));
    assertThat(groups.get(0).getAttributes().get(EndpointAttributes.WEIGHT)).isEqualTo(3);
    assertThat(groups.get(0).getAttributes().get(EndpointAttributes.LABELS))
        .isEqualTo(Map.of("zone", "a"));
    assertThat(groups.get(1).getAddresses()).containsExactly(new InetSocketAddress("10.0.0.2", 8443));
    assertThat(groups.get(1).getAttributes().get(EndpointAttributes.WEIGHT)).isEqualTo(1);
    assertThat(EndpointAttributes.toEndpoint(groups.get(1)).toString())
        .isEqualTo("10.0.0.2:8443;zone=b");
  }

  @Test
  void percentEncodedIpv6Works() {
    NameResolver r = resolver(new BallastNameResolverProvider(), "ballast:///%5B::1%5D:8080");

    start(r);

    assertThat(results.get(0).get(0).getAddresses())
        .containsExactly(new InetSocketAddress("::1", 8080));
  }

  @Test
  void otherSchemesAreNotOurs() {
    assertThat(resolver(new BallastNameResolverProvider(), "dns:///example.org:443")).isNull();
    assertThat(new BallastNameResolverProvider().getDefaultScheme()).isEqualTo("ballast");
  }

  @Test
  void badTargetsAreRejectedNamingThePart() {
    BallastNameResolverProvider p = new BallastNameResolverProvider();
    assertThatThrownBy(() -> resolver(p, "ballast:///10.0.0.1:443;weight=-1"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("weight: -1 (expected: > 0)");
    assertThatThrownBy(() -> resolver(p, "ballast:///10.0.0.1"))
        .hasMessageContaining("expected: host:port");
    assertThatThrownBy(() -> resolver(p, "ballast:///"))
        .hasMessageContaining("expected: at least one endpoint");
    assertThatThrownBy(() -> resolver(p, "ballast://orders/10.0.0.1:443"))
        .hasMessageContaining("not both");
  }

  @Test
  void namedTargetFollowsTheRegistry() {
    EndpointRegistry registry = new EndpointRegistry();
    NameResolver r = resolver(new BallastNameResolverProvider(registry), "ballast://orders");

    start(r);
    assertThat(r.getServiceAuthority()).isEqualTo("orders");
    assertThat(results).isEmpty();
    assertThat(errors).hasSize(1);
    assertThat(errors.get(0).getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(errors.get(0).getDescription()).contains("no endpoints published under 'orders'");

    registry.publish("orders", "10.0.0.1:443;zone=a");
    registry.publish("orders", "10.0.0.1:443;zone=a,10.0.0.2:443;weight=2");
    assertThat(results).hasSize(2);
    assertThat(results.get(1)).hasSize(2);
    assertThat(results.get(1).get(1).getAttributes().get(EndpointAttributes.WEIGHT)).isEqualTo(2);

    syncContext.execute(r::refresh);
    assertThat(results).hasSize(3);
    assertThat(results.get(2)).isEqualTo(results.get(1));

    syncContext.execute(r::shutdown);
    registry.publish("orders", "10.0.0.3:443");
    assertThat(results).hasSize(3);
  }

  @Test
  void unpublishWithdrawsOnlyTheListStillPublished() {
    EndpointRegistry registry = new EndpointRegistry();
    List<Endpoint> first = Endpoint.parseList("10.0.0.1:443;zone=a");
    registry.publish("orders", first);
    List<List<Endpoint>> seen = new ArrayList<>();
    registry.subscribe("orders", seen::add);

    assertThat(registry.unpublish("orders", Endpoint.parseList("10.0.0.2:443"))).isFalse();
    assertThat(registry.get("orders")).contains(first);
    // an equal list, not the same instance, is enough
    assertThat(registry.unpublish("orders", Endpoint.parseList("10.0.0.1:443;zone=a"))).isTrue();
    assertThat(registry.get("orders")).isEmpty();
    assertThat(registry.unpublish("orders", first)).isFalse();
    assertThat(registry.unpublish("users", first)).isFalse();
    assertThat(seen).containsExactly(first);

    List<List<Endpoint>> late = new ArrayList<>();
    registry.subscribe("orders", late::add);
    assertThat(late).isEmpty();
    registry.publish("orders", "10.0.0.3:443");
    assertThat(seen).hasSize(2);
    assertThat(late).containsExactly(List.of(Endpoint.parse("10.0.0.3:443")));
  }

  @Test
  void alreadyPublishedNameResolvesAtStart() {
    EndpointRegistry registry = new EndpointRegistry();
    registry.publish("users", "10.0.0.9:80");
    NameResolver r = resolver(new BallastNameResolverProvider(registry), "ballast://users/");

    start(r);

    assertThat(errors).isEmpty();
    assertThat(results).hasSize(1);
    assertThat(results.get(0).get(0).getAddresses())
        .containsExactly(new InetSocketAddress("10.0.0.9", 80));
  }

  @Test
  void registryChecksItsArguments() {
    EndpointRegistry registry = new EndpointRegistry();
    assertThatThrownBy(() -> registry.publish("a/b", "10.0.0.1:80"))
        .hasMessage("name: a/b (unexpected character '/'; expected letters, digits, '-', '_' or"
            + " '.')");
    assertThatThrownBy(() -> registry.publish("", "10.0.0.1:80"))
        .hasMessageContaining("name: empty");
    assertThatThrownBy(() -> registry.publish("x", List.of(
            dev.ballast.core.Endpoint.parse("10.0.0.1:80"),
            dev.ballast.core.Endpoint.parse("10.0.0.1:80;weight=2"))))
        .hasMessage("address: 10.0.0.1:80 listed twice for x");
    assertThat(registry.get("x")).isEmpty();
  }

  @Test
  void subscribersGetTheCurrentListThenEveryLaterOneUntilClosed() {
    EndpointRegistry registry = new EndpointRegistry();
    registry.publish("svc", "10.0.0.1:80");
    List<String> seen = new ArrayList<>();

    EndpointRegistry.Subscription sub = registry.subscribe("svc", l -> seen.add(l.toString()));
    registry.publish("svc", List.of());
    sub.close();
    registry.publish("svc", "10.0.0.2:80");

    assertThat(seen).containsExactly("[10.0.0.1:80]", "[]");
    assertThat(registry.get("svc").orElseThrow()).hasSize(1);
  }
}
