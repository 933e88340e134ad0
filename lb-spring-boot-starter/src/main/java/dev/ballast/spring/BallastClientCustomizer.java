package dev.ballast.spring;

import dev.ballast.netty.BallastClient;

/**
 * Adjusts a client's builder after the properties are applied and before the client is built,
 * e.g. to add a {@link dev.ballast.netty.Filter}. Every customizer bean is applied, in {@link
 * org.springframework.core.annotation.Order} order; the Micrometer binding is one of them.
 */
@FunctionalInterface
public interface BallastClientCustomizer {

  /**
   * Customizes the builder of one client.
   *
   * @param settings the client's checked settings (its name, endpoints and the rest)
   * @param builder the builder, typed {@code Builder<byte[], byte[]>} for {@code framed} clients
   *     and {@code Builder<HttpRequest, HttpResponse>} for {@code http} ones
   */
  void customize(ClientSettings settings, BallastClient.Builder<?, ?> builder);
}
