package dev.ballast.netty;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.ballast.core.Algorithm;
import dev.ballast.core.Balancer;
import dev.ballast.core.BalancerConfig;
import dev.ballast.core.Endpoint;
import dev.ballast.core.Node;
import dev.ballast.netty.error.RemoteException;
import dev.ballast.netty.framed.FramedServer;
import dev.ballast.netty.outlier.OutlierDetection;
import dev.ballast.netty.retry.Backoff;
import dev.ballast.netty.retry.RetryPolicy;
import dev.ballast.netty.testing.Await;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The per-call context and user filters: a call-level and an attempt-level filter run for every
 * call form, and see the call's options, its attributes and each attempt's number; the
 * classifier decides before any feedback; a call never throws.
 */
class StackContextTest {

  private static final CallOptions.Key<String> TENANT = CallOptions.Key.of("tenant");
  private static final CallOptions.Key<Integer> SEEN_BY_CALL_FILTER = CallOptions.Key.of("seen");

  private final Set<Byte> seenPayloads = ConcurrentHashMap.newKeySet();
  private FramedServer flaky;

  @BeforeEach
  void start() {
    // A payload seen for the first time fails with the remote error flag; again, it echoes.
    flaky = FramedServer.start(req -> seenPayloads.add(req.payload()[0])
        ? CompletableFuture.failedFuture(new IllegalStateException("first time"))
        : CompletableFuture.completedFuture(req.payload()));
  }

  @AfterEach
  void stop() {
    flaky.close();
  }

  /** What a filter saw. */
  private record Seen(String level, CallOptions options, int attempt, String tenant,
      Integer fromCallFilter) {}

  @Test
  void callAndAttemptFiltersRunForEveryCallFormAndSeeOptionsAndAttempts() throws Exception {
    List<Seen> seen = Collections.synchronizedList(new ArrayList<>());
    List<Integer> attemptsAtEnd = Collections.synchronizedList(new ArrayList<>());
    Filter<byte[], byte[]> callFilter = (req, ctx, next) -> {
      seen.add(new Seen("call", ctx.options(), ctx.attempts(), ctx.attribute(TENANT), null));
      ctx.setAttribute(SEEN_BY_CALL_FILTER, 42);
      return next.call(req).whenComplete((r, e) -> attemptsAtEnd.add(ctx.attempts()));
    };
    AttemptFilter<byte[], byte[]> attemptFilter = (req, ctx, next) -> {
      seen.add(new Seen("attempt", ctx.call().options(), ctx.number(),
          ctx.call().attribute(TENANT), ctx.call().attribute(SEEN_BY_CALL_FILTER)));
      return next.call(req);
    };
    try (BallastClient<byte[], byte[]> client = BallastClient.framed()
        .endpoints(List.of(flaky.endpoint()))
        .retryPolicy(RetryPolicy.builder().backoff(Backoff.none()).build())
        .outlierDetection(OutlierDetection.disabled())
        .filter(callFilter)
        .attemptFilter(attemptFilter)
        .build()) {
      // call(request): default options, not idempotent: the remote error is not retried.
      Throwable t = catchThrowable(() -> client.call(new byte[] {1}).get(10, TimeUnit.SECONDS));
      assertThat(t).cause().isInstanceOf(RemoteException.class).hasMessageContaining("attempt 1");
      // call(request, options): idempotent, with an attribute: retried once, then answered.
      CallOptions options = CallOptions.idempotent().withAttribute(TENANT, "acme");
      assertThat(client.call(new byte[] {2}, options).get(10, TimeUnit.SECONDS))
          .containsExactly(2);
      assertThat(seen).containsExactly(
          new Seen("call", CallOptions.DEFAULT, 0, null, null),
          new Seen("attempt", CallOptions.DEFAULT, 1, null, 42),
          new Seen("call", options, 0, "acme", null),
          new Seen("attempt", options, 1, "acme", 42),
          new Seen("attempt", options, 2, "acme", 42));
      assertThat(attemptsAtEnd).containsExactly(1, 2);
      assertThat(client.callStats()).isEqualTo(new CallStats(2, 1, 0, 0));
    }
  }

  @Test
  void theClassifierDecidesBeforeAnyFeedback() throws Exception {
    List<String> atClassification = Collections.synchronizedList(new ArrayList<>());
    List<BallastClient<byte[], byte[]>> self = new ArrayList<>();
    // Calls an answer "x" a failure: the balancer, outlier detection and counters must agree.
    ResponseClassifier<byte[], byte[]> classifier = (attempt, rep, err) -> {
      EndpointStats s = self.get(0).stats().get(0);
      atClassification.add("pending " + s.pending() + ", failures " + s.failures()
          + ", successes " + s.successes());
      return err == null && rep[0] != 'x' ? Classification.SUCCESS : Classification.FAILURE;
    };
    try (FramedServer echo = FramedServer.start(FramedServer.echo());
        BallastClient<byte[], byte[]> client = BallastClient.framed()
            .endpoints(List.of(echo.endpoint()))
            .classifier(classifier)
            .outlierDetection(OutlierDetection.builder().consecutiveFailures(2)
                .successRateThreshold(0).maxEjectionPercent(100).build())
            .build()) {
      self.add(client);
      assertThat(client.call(new byte[] {'a'}).get(10, TimeUnit.SECONDS)).containsExactly('a');
      // A failed classification of an answer: the caller still gets the answer.
      assertThat(client.call(new byte[] {'x'}).get(10, TimeUnit.SECONDS)).containsExactly('x');
      assertThat(client.call(new byte[] {'x'}).get(10, TimeUnit.SECONDS)).containsExactly('x');
      assertThat(atClassification).containsExactly(
          "pending 1, failures 0, successes 0",
          "pending 1, failures 0, successes 1",
          "pending 1, failures 1, successes 1");
      EndpointStats s = client.stats().get(0);
      assertThat(s.failures()).isEqualTo(2);
      assertThat(s.successes()).isEqualTo(1);
      assertThat(s.pending()).isZero();
      assertThat(s.ejected()).as("two classified failures in a row eject").isTrue();
    }
  }

  @Test
  void aCallNeverThrowsEveryFailureGoesIntoTheFuture() throws Exception {
    Filter<byte[], byte[]> nullFilter = (req, ctx, next) -> null;
    Filter<byte[], byte[]> throwing = (req, ctx, next) -> {
      throw new IllegalStateException("filter bug");
    };
    AttemptFilter<byte[], byte[]> twice = (req, ctx, next) -> {
      next.call(req);
      return next.call(req);
    };
    ResponseClassifier<byte[], byte[]> brokenClassifier = (a, rep, err) -> {
      throw new IllegalArgumentException("classifier bug");
    };
    try (FramedServer echo = FramedServer.start(FramedServer.echo());
        BallastClient<byte[], byte[]> plain = client(echo).build();
        BallastClient<byte[], byte[]> nulls = client(echo).filter(nullFilter).build();
        BallastClient<byte[], byte[]> throwsClient = client(echo).filter(throwing).build();
        BallastClient<byte[], byte[]> calledTwice = client(echo).attemptFilter(twice).build();
        BallastClient<byte[], byte[]> badClassifier =
            client(echo).classifier(brokenClassifier).build()) {
      assertThat(failure(plain.call(null))).isInstanceOf(NullPointerException.class)
          .hasMessage("request");
      assertThat(failure(plain.call(new byte[] {1}, null))).isInstanceOf(NullPointerException.class)
          .hasMessage("options");
      assertThat(failure(nulls.call(new byte[] {1}))).isInstanceOf(NullPointerException.class)
          .hasMessage("a filter returned null");
      assertThat(failure(throwsClient.call(new byte[] {1})))
          .isInstanceOf(IllegalStateException.class).hasMessage("filter bug");
      assertThat(failure(calledTwice.call(new byte[] {1})))
          .isInstanceOf(IllegalStateException.class)
          .hasMessage("next called twice for attempt 1 (expected: at most once)");
      assertThat(failure(badClassifier.call(new byte[] {1})))
          .isInstanceOf(IllegalArgumentException.class).hasMessage("classifier bug");
      for (BallastClient<byte[], byte[]> c : List.of(plain, nulls, throwsClient, calledTwice,
          badClassifier)) {
        assertThat(c.inFlightCalls()).isZero();
        // the request sent first by the filter calling next twice may still await its answer
        Await.until(Duration.ofSeconds(10), () -> c.stats().toString(),
            () -> c.stats().stream().allMatch(s -> s.pending() == 0 && s.inFlight() == 0));
      }
    }
  }

  @Test
  void aBalancerWhosePickThrowsFailsTheCallNotTheCaller() throws Exception {
    BalancerFactory broken = new BalancerFactory() {
      @Override
      public <T> Balancer<T> create(BalancerConfig config) {
        return new PickThrows<>(Algorithm.ROUND_ROBIN.create(config));
      }
    };
    try (FramedServer echo = FramedServer.start(FramedServer.echo());
        BallastClient<byte[], byte[]> client = client(echo).balancer(broken).build()) {
      CompletableFuture<byte[]> call = client.call(new byte[] {1});
      // as when nothing can be picked, naming the client and the policy, with the bug as cause
      assertThat(failure(call)).isInstanceOf(dev.ballast.core.NoAvailableEndpointException.class)
          .hasMessage("client ballast: balancing policy pick_throws failed to pick:"
              + " java.lang.IllegalStateException: pick bug")
          .cause().isInstanceOf(IllegalStateException.class).hasMessage("pick bug");
      // Ended at once: not left in flight until its deadline (10 s).
      assertThat(client.inFlightCalls()).isZero();
      assertThat(echo.requests()).isZero();
    }
  }

  /** A balancer whose every pick throws, as a buggy custom one might. */
  private static final class PickThrows<T> implements Balancer<T> {
    private final Balancer<T> inner;

    PickThrows(Balancer<T> inner) {
      this.inner = inner;
    }

    @Override
    public Node<T> pick() {
      throw new IllegalStateException("pick bug");
    }

    @Override
    public List<Node<T>> update(Collection<Endpoint> endpoints,
        Function<? super Endpoint, ? extends T> values) {
      return inner.update(endpoints, values);
    }

    @Override
    public List<Node<T>> nodes() {
      return inner.nodes();
    }

    @Override
    public String name() {
      return "pick_throws";
    }
  }

  private static BallastClient.Builder<byte[], byte[]> client(FramedServer server) {
    return BallastClient.framed().endpoints(List.of(server.endpoint()))
        .balancer(Algorithm.ROUND_ROBIN).timeout(Duration.ofSeconds(10));
  }

  private static Throwable failure(CompletableFuture<byte[]> f) throws Exception {
    try {
      f.get(10, TimeUnit.SECONDS);
      return null;
    } catch (ExecutionException e) {
      return e.getCause();
    }
  }
}
