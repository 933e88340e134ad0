package dev.ballast.discovery.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.core.source.EndpointSource;
import dev.ballast.core.source.EndpointSourceProvider;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The {@code zookeeper} target's connection timeout: taken from the query, checked. */
class ZooKeeperTargetTest {

  @ParameterizedTest
  @ValueSource(strings = {"", "?connectionTimeout=2s", "?connectionTimeout=250ms"})
  void aTargetWithOrWithoutATimeoutMakesASource(String query) throws Exception {
    try (EndpointSource s =
        EndpointSourceProvider.open("zookeeper://127.0.0.1:2181/services/orders" + query)) {
      assertThat(s).isNotNull();
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"connectionTimeout=2", "connectionTimeout=0s", "connectionTimeout=31s",
      "connectionTimeout=soon"})
  void aBadTimeoutIsNamed(String query) {
    String target = "zookeeper://127.0.0.1:2181/services/orders?" + query;
    assertThatThrownBy(() -> EndpointSourceProvider.open(target))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("connectionTimeout: " + query.substring(query.indexOf('=') + 1)
            + " (expected: a duration from 1ms to the session timeout, 30s; such as 2s) in "
            + target);
  }

  @ParameterizedTest
  @ValueSource(strings = {"timeout=2s", "connectionTimeout=2s&x=1"})
  void anotherQueryIsNamed(String query) {
    String target = "zookeeper://127.0.0.1:2181/services/orders?" + query;
    assertThatThrownBy(() -> EndpointSourceProvider.open(target))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("query: \"" + query + "\" (expected: connectionTimeout=VALUE, as in"
            + " zookeeper://host:port[,host:port...]/services/orders[?connectionTimeout=10s]) in "
            + target);
  }
}
