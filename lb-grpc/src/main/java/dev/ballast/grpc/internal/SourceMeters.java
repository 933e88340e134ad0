package dev.ballast.grpc.internal;

import dev.ballast.core.source.EndpointFeed;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Metrics;
import io.micrometer.core.instrument.Tags;
import java.util.List;

/**
 * A channel's endpoint source in Micrometer's global registry, under the names an lb-netty
 * client reports its own with ({@code ballast.source.endpoints}, {@code .updates}, {@code
 * .rejected}, {@code .up}, {@code .staleness}), tagged {@code target} (the channel's target) and
 * {@code source}. Loaded only when Micrometer is on the class path.
 */
final class SourceMeters {

  private SourceMeters() {}

  /** Registers the feed's meters; returns what removes them (the resolver's shutdown). */
  static Runnable register(EndpointFeed feed, String target) {
    MeterRegistry registry = Metrics.globalRegistry;
    Tags tags = Tags.of("target", target, "source", feed.name());
    List<Meter> meters = List.of(
        Gauge.builder("ballast.source.endpoints", feed, EndpointFeed::endpointCount).tags(tags)
            .description("endpoints held from the source").register(registry),
        FunctionCounter.builder("ballast.source.updates", feed, EndpointFeed::updatesApplied)
            .tags(tags).description("changes applied from the source").register(registry),
        FunctionCounter.builder("ballast.source.rejected", feed, EndpointFeed::entriesRejected)
            .tags(tags).description("source entries skipped").register(registry),
        Gauge.builder("ballast.source.up", feed, f -> f.isUp() ? 1 : 0).tags(tags)
            .description("1 while the source is connected and current").register(registry),
        Gauge.builder("ballast.source.staleness", feed, EndpointFeed::stalenessSeconds)
            .tags(tags).baseUnit("seconds").description("seconds since the source was last current")
            .register(registry));
    return () -> meters.forEach(registry::remove);
  }
}
