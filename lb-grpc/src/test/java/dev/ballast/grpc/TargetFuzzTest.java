package dev.ballast.grpc;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.grpc.NameResolver;
import io.grpc.SynchronizationContext;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.Map;

/**
 * Fuzz target (Jazzer) for the {@code ballast:} target parser: {@code ballast:///<endpoints>},
 * {@code ballast://<name>} and whatever else a URI holds. The documented failure is {@link
 * IllegalArgumentException}; a resolver it returns names an authority. Resolvers are not
 * started (a fixed list would look host names up).
 */
class TargetFuzzTest {

  private static final String[] PREFIXES = {"ballast:///", "ballast://", "ballast:"};
  private static final BallastNameResolverProvider PROVIDER =
      new BallastNameResolverProvider(new EndpointRegistry());
  private static final NameResolver.Args ARGS = NameResolver.Args.newBuilder()
      .setDefaultPort(443)
      .setProxyDetector(addr -> null)
      .setSynchronizationContext(new SynchronizationContext((t, e) -> {
        throw new AssertionError(e);
      }))
      .setServiceConfigParser(new NameResolver.ServiceConfigParser() {
        @Override
        public NameResolver.ConfigOrError parseServiceConfig(Map<String, ?> rawServiceConfig) {
          return NameResolver.ConfigOrError.fromConfig(rawServiceConfig);
        }
      })
      .build();

  @FuzzTest
  void ballastTarget(FuzzedDataProvider data) {
    URI uri;
    try {
      uri = new URI(data.pickValue(PREFIXES) + data.consumeRemainingAsString());
    } catch (URISyntaxException notATarget) {
      return;
    }
    NameResolver resolver;
    try {
      resolver = PROVIDER.newNameResolver(uri, ARGS);
    } catch (IllegalArgumentException expected) {
      return;
    }
    if (resolver == null || resolver.getServiceAuthority() == null
        || resolver.getServiceAuthority().isEmpty()) {
      throw new AssertionError("no resolver or no authority for " + uri);
    }
  }
}
