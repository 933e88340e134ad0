package dev.ballast.netty.internal;

import dev.ballast.core.BalancerConfig;
import dev.ballast.core.Endpoint;
import dev.ballast.core.Ticker;
import dev.ballast.core.source.EndpointSource;
import dev.ballast.core.subset.SubsetConfig;
import dev.ballast.netty.AttemptFilter;
import dev.ballast.netty.AttemptModule;
import dev.ballast.netty.BalancerFactory;
import dev.ballast.netty.Filter;
import dev.ballast.netty.ResponseClassifier;
import dev.ballast.netty.Role;
import dev.ballast.netty.health.HealthCheck;
import dev.ballast.netty.outlier.OutlierDetection;
import dev.ballast.netty.pool.PoolConfig;
import dev.ballast.netty.retry.Hedging;
import dev.ballast.netty.retry.RetryPolicy;
import io.netty.channel.EventLoopGroup;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executor;

/**
 * What a builder hands the engine: every setting, checked, with its default applied, and the
 * modules in their order ({@code modules}: each added role's module; built-in roles have none).
 */
public record ClientSpec<Req, Rep>(
    String name,
    Protocol<Req, Rep> protocol,
    List<Endpoint> endpoints,
    EndpointSource source,
    BalancerFactory balancerFactory,
    BalancerConfig balancerConfig,
    SubsetConfig subsets,
    Duration timeout,
    RetryPolicy retry,
    Hedging hedging,
    ResponseClassifier<Req, Rep> classifier,
    PoolConfig pool,
    OutlierDetection outlier,
    HealthCheck healthCheck,
    Duration slowThreshold,
    Duration closeGrace,
    Duration lateAnswerWait,
    EventLoopGroup group,
    Executor completionExecutor,
    Ticker ticker,
    long seed,
    List<Filter<Req, Rep>> filters,
    List<AttemptFilter<Req, Rep>> attemptFilters,
    Object meterRegistry,
    List<Role> order,
    Map<Role, AttemptModule<Req, Rep>> modules,
    Chain.Trace trace) {
}
