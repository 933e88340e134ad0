package dev.ballast.discovery.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class ServiceInstanceJsonTest {

  @Test
  void readsAnXDiscoveryInstanceWithWeightAndLabelsInItsPayload() {
    String json = "{\"name\":\"orders\",\"id\":\"4f1c\",\"address\":\"10.0.0.7\",\"port\":8080,"
        + "\"sslPort\":null,\"payload\":{\"@class\":\"java.util.LinkedHashMap\",\"weight\":3,"
        + "\"zone\":\"us-east\",\"tags\":[\"a\",\"b\"],\"build\":42},"
        + "\"registrationTimeUTC\":1700000000000,\"serviceType\":\"DYNAMIC\",\"uriSpec\":null,"
        + "\"enabled\":true,\"note\":\"\\u0041\\n\"}";
    assertThat(ServiceInstanceJson.parse(json))
        .hasToString("10.0.0.7:8080;weight=3;build=42;zone=us-east");
  }

  @Test
  void takesTheSslPortWhenThereIsNoPortAndWeightOneWithoutPayload() {
    assertThat(ServiceInstanceJson.parse(
        "{\"address\":\"db-1\",\"port\":null,\"sslPort\":8443,\"payload\":null}"))
        .hasToString("db-1:8443");
  }

  @Test
  void namesWhatIsWrong() {
    assertThatThrownBy(() -> ServiceInstanceJson.parse("{\"address\":\"a\",\"port\":70000}"))
        .hasMessageContaining("port: 70000 (expected: 1-65535)");
    assertThatThrownBy(() -> ServiceInstanceJson.parse("{\"port\":80}"))
        .hasMessageContaining("address: null");
    assertThatThrownBy(() -> ServiceInstanceJson.parse("{\"address\":\"a\",\"port\":80.5}"))
        .hasMessageContaining("port: 80.5");
    assertThatThrownBy(() -> ServiceInstanceJson.parse("{\"address\":\"a\",\"port\":80"))
        .hasMessageContaining("truncated");
    assertThatThrownBy(() -> ServiceInstanceJson.parse("{\"address\":\"a\" \"port\":80}"))
        .hasMessageContaining("at offset 15 (expected: '}')");
    assertThatThrownBy(() -> ServiceInstanceJson.parse(
        "{\"address\":\"a\",\"port\":80,\"enabled\":false}"))
        .hasMessageContaining("enabled is false");
  }
}
