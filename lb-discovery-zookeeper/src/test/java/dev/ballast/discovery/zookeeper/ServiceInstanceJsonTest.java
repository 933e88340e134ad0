package dev.ballast.discovery.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.core.Endpoint;
import dev.ballast.core.Health;
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
  void aStatusMemberIsTheHealthLabel() {
    // Spring Cloud Zookeeper's instance: labels and instance_status in payload.metadata
    String spring = "{\"address\":\"10.0.0.7\",\"port\":8080,\"payload\":{\"@class\":"
        + "\"org.springframework.cloud.zookeeper.discovery.ZookeeperInstance\",\"id\":\"orders-1\","
        + "\"name\":\"orders\",\"metadata\":{\"zone\":\"a\",\"instance_status\":\"OUT_OF_SERVICE\"}}}";
    Endpoint e = ServiceInstanceJson.parse(spring);
    assertThat(e.health()).isEqualTo(Health.UNHEALTHY);
    assertThat(e.zone()).isEqualTo("a");
    assertThat(ServiceInstanceJson.parse(spring.replace("OUT_OF_SERVICE", "UP")).health())
        .isEqualTo(Health.HEALTHY);
    assertThat(ServiceInstanceJson.parse("{\"address\":\"h\",\"port\":1,\"payload\":"
        + "{\"status\":\"warning\"}}").health()).isEqualTo(Health.DEGRADED);
    assertThat(ServiceInstanceJson.parse("{\"address\":\"h\",\"port\":1,\"payload\":"
        + "{\"status\":\"passing\",\"health\":\"unhealthy\"}}").health())
        .as("the worse of the two").isEqualTo(Health.UNHEALTHY);
    assertThatThrownBy(() -> ServiceInstanceJson.parse("{\"address\":\"h\",\"port\":1,"
        + "\"payload\":{\"status\":\"sleepy\"}}"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("ServiceInstance JSON: status: sleepy (expected: a status such as UP, DOWN "
            + "or OUT_OF_SERVICE)");
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
