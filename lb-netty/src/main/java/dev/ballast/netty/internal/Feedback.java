package dev.ballast.netty.internal;

import dev.ballast.netty.AttemptModule;
import dev.ballast.netty.Classification;
import dev.ballast.netty.ResponseClassifier;
import dev.ballast.netty.Role;
import dev.ballast.netty.error.ConnectFailedException;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * The attempt-level modules that hear each attempt's outcome on its way up: the classifier, which
 * classifies it first, then metrics and outlier detection (the balancer's own is {@link
 * BalancerModule}).
 * An attempt cancelled because another one answered first has no classification: only the
 * balancer hears of it (when its late answer comes, or at once if none can come).
 */
final class Feedback {

  private Feedback() {
  }

  static <Req, Rep> Classification classifyQuietly(ResponseClassifier<Req, Rep> classifier,
      Attempt<Req, Rep> a, Rep rep, Throwable err) {
    try {
      Classification c = classifier.classify(a, rep, err);
      return c != null ? c : Classification.FAILURE;
    } catch (RuntimeException | Error e) {
      return Classification.FAILURE;
    }
  }

  /**
   * The {@link ResponseClassifier}: classifies the outcome on its way up (a classifier that
   * throws or returns null makes it a failure with that error). The outcome of an attempt the
   * call ended without is classified only when the call failed (deadline, close).
   */
  static final class Classifier<Req, Rep> extends AttemptLayer<Req, Rep> {
    private final ResponseClassifier<Req, Rep> classifier;

    Classifier(ResponseClassifier<Req, Rep> classifier) {
      super(Role.CLASSIFIER);
      this.classifier = classifier;
    }

    @Override
    boolean leave(Attempt<Req, Rep> a) {
      if (a.isAbandoned()) {
        Throwable reason = a.abandonReason();
        if (reason != null) {
          a.outcome(classifyQuietly(classifier, a, null, reason), null, reason);
        }
        return true;
      }
      Rep rep = a.response;
      Throwable err = a.failure;
      Classification c;
      try {
        c = Objects.requireNonNull(classifier.classify(a, rep, err), "classifier returned null");
      } catch (RuntimeException | Error e) {
        c = Classification.FAILURE;
        rep = null;
        err = e;
      }
      a.outcome(c, rep, err);
      return true;
    }
  }

  /** Outlier detection: each classified outcome that reached the endpoint. */
  static final class Outliers<Req, Rep> extends AttemptLayer<Req, Rep> {
    private final Ejections detector;

    Outliers(Ejections detector) {
      super(Role.OUTLIER_DETECTION);
      this.detector = detector;
    }

    @Override
    boolean leave(Attempt<Req, Rep> a) {
      Classification c = a.classification();
      if (c != null && a.countsForEndpoint()) {
        // the clock read when the attempt ended, not a new one
        detector.record(a.ep.host, c.isSuccess(), a.start + a.latencyNanos());
      }
      return true;
    }
  }

  /**
   * The endpoint's counters and metrics, and the slow-request log ({@code
   * dev.ballast.netty.slow}, WARNING, for successful attempts at or above the threshold); a
   * refused connection asks the endpoint source to re-read early (DNS does).
   */
  static final class Metrics<Req, Rep> extends AttemptLayer<Req, Rep> {
    private static final System.Logger SLOW_LOG = System.getLogger("dev.ballast.netty.slow");

    private final String client;
    private final long slowNanos;
    private final Endpoints<Req, Rep> endpoints;

    Metrics(String client, long slowNanos, Endpoints<Req, Rep> endpoints) {
      super(Role.METRICS);
      this.client = client;
      this.slowNanos = slowNanos;
      this.endpoints = endpoints;
    }

    @Override
    boolean leave(Attempt<Req, Rep> a) {
      if (a.failure instanceof ConnectFailedException) {
        endpoints.connectFailed();
      }
      Classification c = a.classification();
      if (c == null || !a.countsForEndpoint()) {
        return true;
      }
      EndpointClient<Req, Rep> ep = a.ep;
      long latency = a.latencyNanos();
      if (!c.isSuccess()) {
        ep.failures.increment();
        ep.metrics.failure(latency, a.failure);
        return true;
      }
      ep.successes.increment();
      ep.metrics.success(latency);
      if (latency >= slowNanos) {
        SLOW_LOG.log(System.Logger.Level.WARNING, () -> "slow request: endpoint " + ep.address
            + ", attempt " + a.number + ", latency " + TimeUnit.NANOSECONDS.toMillis(latency)
            + " ms (threshold " + TimeUnit.NANOSECONDS.toMillis(slowNanos) + " ms), client "
            + client);
      }
      return true;
    }
  }

  /** An {@link AttemptModule} of the caller's own, under its role. */
  static final class Added<Req, Rep> extends AttemptLayer<Req, Rep> {
    private final AttemptModule<Req, Rep> module;

    Added(Role role, AttemptModule<Req, Rep> module) {
      super(role);
      this.module = module;
    }

    @Override
    void enter(Attempt<Req, Rep> a) {
      try {
        module.enter(a);
      } catch (RuntimeException | Error e) {
        a.failUnsent(e);
        return;
      }
      pass(a);
    }

    @Override
    boolean leave(Attempt<Req, Rep> a) {
      try {
        module.leave(a, a.response, a.failure);
      } catch (RuntimeException | Error e) {
        // ignored: every module above still hears the outcome
      }
      return true;
    }
  }
}
