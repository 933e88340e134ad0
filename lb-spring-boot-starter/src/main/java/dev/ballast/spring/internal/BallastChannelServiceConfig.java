package dev.ballast.spring.internal;

import dev.ballast.spring.BallastGrpcEndpoints;
import dev.ballast.spring.BallastSettings;
import java.util.Map;
import java.util.Objects;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.grpc.client.autoconfigure.GrpcClientDefaultServiceConfigCustomizer;

/**
 * Gives a Spring Boot gRPC channel whose target is {@code ballast://<name>} the load-balancing
 * config of {@code ballast.clients.<name>} (balancer, its settings, label subsets), unless the
 * channel chose a policy itself ({@code spring.grpc.client.channel.<channel>.default
 * .load-balancing-policy}, or a {@code loadBalancingConfig} in its service config).
 */
public final class BallastChannelServiceConfig implements GrpcClientDefaultServiceConfigCustomizer {

  private static final String SCHEME = "ballast://";

  private final BallastGrpcEndpoints endpoints;
  private final BallastSettings settings;
  private final Binder binder;

  /** Creates the customizer over the application's environment. */
  public BallastChannelServiceConfig(
      BallastGrpcEndpoints endpoints, BallastSettings settings, Binder binder) {
    this.endpoints = Objects.requireNonNull(endpoints, "endpoints");
    this.settings = Objects.requireNonNull(settings, "settings");
    this.binder = Objects.requireNonNull(binder, "binder");
  }

  @Override
  public void customize(String channel, Map<String, Object> serviceConfig) {
    if (serviceConfig.containsKey("loadBalancingConfig")) {
      return;
    }
    String target = channel;
    ConfigurationPropertyName prefix = channelPrefix(channel);
    if (prefix != null) {
      if (bound(prefix.append("default.load-balancing-policy"))
          || bound(prefix.append("load-balancing-policy"))) {
        return;
      }
      target = binder.bind(prefix.append("target"), Bindable.of(String.class)).orElse(channel);
    }
    if (!target.startsWith(SCHEME)) {
      return;
    }
    String name = target.substring(SCHEME.length());
    if (settings.names().contains(name)) {
      serviceConfig.putAll(endpoints.serviceConfig(name));
    }
  }

  private boolean bound(ConfigurationPropertyName name) {
    return binder.bind(name, Bindable.of(String.class)).isBound();
  }

  private static ConfigurationPropertyName channelPrefix(String channel) {
    String element = channel.matches("[a-z0-9][a-z0-9-]*") ? "." + channel : "[" + channel + "]";
    ConfigurationPropertyName name =
        ConfigurationPropertyName.of("spring.grpc.client.channel" + element);
    return channel.contains("]") ? null : name;
  }
}
