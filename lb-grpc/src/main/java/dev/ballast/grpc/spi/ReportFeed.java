package dev.ballast.grpc.spi;

import dev.ballast.core.BalancerConfig;
import io.grpc.LoadBalancer;
import io.grpc.LoadBalancer.Helper;
import java.util.ServiceLoader;
import java.util.function.Function;

/**
 * Feeds the nodes of a policy that {@linkplain dev.ballast.core.policy.Trait#READS_REPORTS reads
 * load reports} with what its servers report: lb-grpc-orca's ORCA, found by {@link ServiceLoader}
 * ({@code META-INF/services/dev.ballast.grpc.spi.ReportFeed}). Without one on the class path
 * such a policy balances without reports.
 */
public interface ReportFeed {

  /**
   * Returns a load balancer over the one {@code inner} makes, whose helper's subchannels report.
   *
   * @param base the settings every balancer reads (its random source spreads retries)
   */
  <B extends LoadBalancer & ReportTarget> LoadBalancer wrap(Helper helper,
      Function<Helper, B> inner, BalancerConfig base);

  /** Wraps {@code inner} in the feed on the class path, or returns it as it is without one. */
  static <B extends LoadBalancer & ReportTarget> LoadBalancer of(Helper helper,
      Function<Helper, B> inner, BalancerConfig base) {
    return ServiceLoader.load(ReportFeed.class, ReportFeed.class.getClassLoader()).findFirst()
        .map(f -> f.wrap(helper, inner, base)).orElseGet(() -> inner.apply(helper));
  }
}
