package dev.ballast.compat;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The starter's tests in this module run on Spring Boot 4.1.2's managed versions, not on the
 * versions Ballast pins: each library is loaded from the jar of Boot's version.
 */
class ManagedVersionsTest {

  @ParameterizedTest(name = "{1} {2}")
  @CsvSource({
      "io.netty.channel.Channel, netty-transport, 4.2.19.Final",
      "io.netty.handler.codec.http.HttpObjectDecoder, netty-codec-http, 4.2.19.Final",
      "io.grpc.ManagedChannel, grpc-api, 1.84.1",
      "io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder, grpc-netty-shaded, 1.84.1",
      "com.github.benmanes.caffeine.cache.Caffeine, caffeine, 3.2.4",
      "io.micrometer.core.instrument.MeterRegistry, micrometer-core, 1.17.2",
      "org.springframework.boot.SpringApplication, spring-boot, 4.1.2",
      "org.junit.jupiter.api.Test, junit-jupiter-api, 6.0.3"})
  void loadedFromSpringBootsVersion(String className, String artifact, String version)
      throws ClassNotFoundException {
    String jar = Class.forName(className).getProtectionDomain().getCodeSource().getLocation()
        .getPath();
    assertThat(jar).endsWith("/" + artifact + "-" + version + ".jar");
  }
}
