package dev.ballast.netty;

import dev.ballast.core.Algorithm;
import dev.ballast.core.BalancerConfig;
import dev.ballast.core.Endpoint;
import dev.ballast.core.Ticker;
import dev.ballast.core.subset.FallbackPolicy;
import dev.ballast.netty.framed.FrameDecoder;
import dev.ballast.netty.internal.Protocol;
import dev.ballast.netty.internal.Transport;
import io.netty.channel.EventLoopGroup;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executor;
import java.util.function.Function;

/**
 * What a {@link BallastClient.Builder} has been told, with its defaults, as the {@link Stack}
 * reads it. The builder's setters check each value; this class only holds them.
 */
abstract class Settings<Req, Rep> {
  final Function<Settings<Req, Rep>, Protocol<Req, Rep>> protocol;
  String name = "ballast";
  List<Endpoint> endpoints = List.of();
  BalancerFactory balancerFactory = Algorithm.P2C_PEAK_EWMA::create;
  BalancerConfig balancerConfig = BalancerConfig.defaults();
  Duration timeout = Duration.ofSeconds(5);
  RetryPolicy.Builder retry = RetryPolicy.builder();
  Hedging hedging;
  ResponseClassifier<Req, Rep> classifier;
  PoolConfig pool = PoolConfig.defaults();
  OutlierDetection outlier = OutlierDetection.defaults();
  Duration slowThreshold = Duration.ofSeconds(1);
  Duration closeGrace = Duration.ofSeconds(5);
  Duration lateAnswerWait = Duration.ofSeconds(10);
  int maxFrameSize = FrameDecoder.DEFAULT_MAX_FRAME_SIZE;
  EventLoopGroup group = Transport.sharedGroup();
  Executor completionExecutor;
  Ticker ticker = Ticker.system();
  long seed = System.nanoTime();
  final List<Filter<Req, Rep>> filters = new ArrayList<>();
  final List<AttemptFilter<Req, Rep>> attemptFilters = new ArrayList<>();
  Object meterRegistry;
  List<List<String>> subsetSelectors;
  FallbackPolicy fallbackPolicy = FallbackPolicy.NO_FALLBACK;
  Map<String, String> defaultSubset;
  boolean allowRedundantKeys;

  Settings(Function<Settings<Req, Rep>, Protocol<Req, Rep>> protocol) {
    this.protocol = protocol;
  }
}
