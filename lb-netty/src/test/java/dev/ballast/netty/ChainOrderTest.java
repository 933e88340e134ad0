package dev.ballast.netty;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.ballast.core.Algorithm;
import dev.ballast.core.BalancerConfig;
import dev.ballast.netty.error.RemoteException;
import dev.ballast.netty.framed.FramedServer;
import dev.ballast.netty.internal.Chain;
import dev.ballast.netty.outlier.OutlierDetection;
import dev.ballast.netty.retry.Hedging;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The client's modules as a chain, seen from inside: every module a call and its attempts enter
 * on the way down and leave on the way up, recorded, against real framed servers on 127.0.0.1.
 * Each module is entered once per call (call level) or once per attempt (attempt level), in
 * {@link ModuleOrder}'s order, and left once, in the reverse order; and a builder can add, remove
 * and reorder modules.
 */
class ChainOrderTest {

  private static final long MS = 1_000_000L;

  private final List<String> trace = Collections.synchronizedList(new ArrayList<>());
  private final List<FramedServer> servers = new ArrayList<>();

  private final Chain.Trace recorder = new Chain.Trace() {
    @Override
    public void entered(Role role, int attempt) {
      trace.add("> " + role + (attempt > 0 ? " #" + attempt : ""));
    }

    @Override
    public void left(Role role, int attempt) {
      trace.add("< " + role + (attempt > 0 ? " #" + attempt : ""));
    }
  };

  @AfterEach
  void stop() {
    servers.forEach(FramedServer::close);
  }

  private FramedServer server(FramedServer.Handler handler) {
    FramedServer s = FramedServer.start(handler);
    servers.add(s);
    return s;
  }

  /** The default order's roles of one level (hedging only when the client hedges). */
  private static List<Role> roles(Role.Level level, boolean hedging) {
    List<Role> roles = new ArrayList<>();
    for (Role r : new ModuleOrder<byte[], byte[]>().roles()) {
      if (r.level() == level && (hedging || !r.equals(Role.HEDGING))) {
        roles.add(r);
      }
    }
    return roles;
  }

  private static List<String> down(List<Role> roles, int attempt) {
    return roles.stream().map(r -> "> " + r + (attempt > 0 ? " #" + attempt : "")).toList();
  }

  private static List<String> up(List<Role> roles, int attempt) {
    List<String> up = new ArrayList<>(
        roles.stream().map(r -> "< " + r + (attempt > 0 ? " #" + attempt : "")).toList());
    Collections.reverse(up);
    return up;
  }

  @SafeVarargs
  private static List<String> concat(List<String>... parts) {
    List<String> all = new ArrayList<>();
    for (List<String> p : parts) {
      all.addAll(p);
    }
    return all;
  }

  @Test
  void aFirstTrySuccessGoesDownEveryModuleOnceAndComesBackUpOnce() throws Exception {
    FramedServer s = server(FramedServer.echo());
    try (BallastClient<byte[], byte[]> client = BallastClient.framed()
        .endpoints(List.of(s.endpoint())).trace(recorder).build()) {
      assertThat(client.call(new byte[] {1}).get(10, TimeUnit.SECONDS)).containsExactly(1);
    }
    List<Role> calls = roles(Role.Level.CALL, false);
    List<Role> attempts = roles(Role.Level.ATTEMPT, false);
    assertThat(trace).containsExactlyElementsOf(concat(down(calls, 0), down(attempts, 1),
        up(attempts, 1), up(calls, 0)));
  }

  @Test
  void aRetryGoesDownAgainBelowTheRetryModuleAndTheCallComesUpOnce() throws Exception {
    AtomicInteger n = new AtomicInteger();
    FramedServer s = server(req -> n.getAndIncrement() == 0
        ? CompletableFuture.failedFuture(new IllegalStateException("first fails"))
        : CompletableFuture.completedFuture(req.payload()));
    try (BallastClient<byte[], byte[]> client = BallastClient.framed()
        .endpoints(List.of(s.endpoint()))
        .outlierDetection(OutlierDetection.disabled())
        .trace(recorder).build()) {
      assertThat(client.call(new byte[] {2}, CallOptions.idempotent()).get(10, TimeUnit.SECONDS))
          .containsExactly(2);
      assertThat(client.callStats().retries()).isEqualTo(1);
    }
    List<Role> calls = roles(Role.Level.CALL, false);
    List<Role> attempts = roles(Role.Level.ATTEMPT, false);
    List<Role> belowRetry = calls.subList(calls.indexOf(Role.RETRY) + 1, calls.size());
    assertThat(trace).containsExactlyElementsOf(concat(down(calls, 0), down(attempts, 1),
        up(attempts, 1), down(belowRetry, 0), down(attempts, 2), up(attempts, 2),
        up(calls, 0)));
  }

  @Test
  void aHedgeGoesDownFromTheHedgingModuleAndTheLoserStillComesUpOnce() throws Exception {
    AtomicLong now = new AtomicLong(1_000_000_000L);
    BlockingQueue<CompletableFuture<byte[]>> held = new LinkedBlockingQueue<>();
    for (int i = 0; i < 2; i++) {
      server(req -> {
        CompletableFuture<byte[]> reply = new CompletableFuture<>();
        held.add(reply);
        return reply;
      });
    }
    try (BallastClient<byte[], byte[]> client = BallastClient.framed()
        .endpoints(servers.stream().map(FramedServer::endpoint).toList())
        .balancer(Algorithm.P2C_PEAK_EWMA)
        .balancerConfig(BalancerConfig.builder().ticker(now::get)
            .random(new SplittableRandom(3)).build())
        .ticker(now::get)
        .hedging(Hedging.after(Duration.ofMillis(50)).withBudget(1))
        .lateAnswerWait(Duration.ZERO)
        .seed(7)
        .trace(recorder).build()) {
      CompletableFuture<byte[]> call = client.call(new byte[] {3}, CallOptions.idempotent());
      CompletableFuture<byte[]> first = held.poll(10, TimeUnit.SECONDS);
      assertThat(first).as("the first attempt reached a server").isNotNull();
      now.addAndGet(60 * MS);
      CompletableFuture<byte[]> hedge = held.poll(10, TimeUnit.SECONDS);
      assertThat(hedge).as("the hedge reached the other server").isNotNull();
      hedge.complete(new byte[] {4});
      assertThat(call.get(10, TimeUnit.SECONDS)).containsExactly(4);
      assertThat(client.callStats()).isEqualTo(new CallStats(1, 0, 1, 1));
      first.complete(new byte[] {5}); // nobody waits for it
    }
    List<Role> calls = roles(Role.Level.CALL, true);
    List<Role> attempts = roles(Role.Level.ATTEMPT, true);
    // the hedge wins; the first attempt, abandoned, comes up before the call does
    assertThat(trace).containsExactlyElementsOf(concat(down(calls, 0), down(attempts, 1),
        down(attempts, 2), up(attempts, 2), up(attempts, 1), up(calls, 0)));
  }

  @Test
  void aBuilderAddsRemovesAndReordersModules() throws Exception {
    AtomicInteger n = new AtomicInteger();
    FramedServer s = server(req -> n.getAndIncrement() == 0
        ? CompletableFuture.failedFuture(new IllegalStateException("first fails"))
        : CompletableFuture.completedFuture(req.payload()));
    Role seen = Role.of("seen");
    List<String> heard = Collections.synchronizedList(new ArrayList<>());
    AttemptModule<byte[], byte[]> module = new AttemptModule<>() {
      @Override
      public void enter(AttemptContext<byte[]> attempt) {
        heard.add("enter " + attempt.number() + " on " + attempt.endpoint().port());
      }

      @Override
      public void leave(AttemptContext<byte[]> attempt, byte[] response, Throwable failure) {
        heard.add("leave " + attempt.number() + " " + attempt.classification() + " "
            + (failure != null ? failure.getClass().getSimpleName() : "answer " + response[0]));
      }
    };
    try (BallastClient<byte[], byte[]> client = BallastClient.framed()
        .endpoints(List.of(s.endpoint()))
        .outlierDetection(OutlierDetection.disabled())
        .modules(m -> m.remove(Role.RETRY)
            .addAfter(Role.BALANCER, seen, module)
            .moveBefore(Role.METRICS, Role.OUTLIER_DETECTION))
        .trace(recorder).build()) {
      Throwable t = catchThrowable(() ->
          client.call(new byte[] {6}, CallOptions.idempotent()).get(10, TimeUnit.SECONDS));
      assertThat(t).as("no retry module: the failure decides the call").cause()
          .isInstanceOf(RemoteException.class);
      assertThat(s.requests()).isEqualTo(1);
      assertThat(client.call(new byte[] {7}).get(10, TimeUnit.SECONDS)).containsExactly(7);
    }
    List<Role> calls = List.of(Role.DEADLINE, Role.CALL_FILTERS);
    List<Role> attempts = List.of(Role.BALANCER, seen, Role.METRICS, Role.OUTLIER_DETECTION,
        Role.CLASSIFIER, Role.ATTEMPT_FILTERS, Role.POOL);
    List<String> one = concat(down(calls, 0), down(attempts, 1), up(attempts, 1), up(calls, 0));
    assertThat(trace).containsExactlyElementsOf(concat(one, one));
    assertThat(heard).containsExactly("enter 1 on " + s.port(),
        "leave 1 retryable failure RemoteException", "enter 1 on " + s.port(),
        "leave 1 success answer 7");
  }

  @Test
  void withoutTheFilterModulesTheBuildersFiltersDoNotRunAndCallsStillGo() throws Exception {
    FramedServer s = server(FramedServer.echo());
    AtomicInteger filtered = new AtomicInteger();
    try (BallastClient<byte[], byte[]> client = BallastClient.framed()
        .endpoints(List.of(s.endpoint()))
        .filter((req, ctx, next) -> {
          filtered.incrementAndGet();
          return next.call(req);
        })
        .attemptFilter((req, ctx, next) -> {
          filtered.incrementAndGet();
          return next.call(req);
        })
        .modules(m -> m.remove(Role.CALL_FILTERS).remove(Role.ATTEMPT_FILTERS))
        .trace(recorder).build()) {
      assertThat(client.call(new byte[] {8}).get(10, TimeUnit.SECONDS)).containsExactly(8);
    }
    assertThat(filtered).hasValue(0);
    List<Role> calls = List.of(Role.DEADLINE, Role.RETRY);
    List<Role> attempts = List.of(Role.BALANCER, Role.OUTLIER_DETECTION, Role.METRICS,
        Role.CLASSIFIER, Role.POOL);
    assertThat(trace).containsExactlyElementsOf(concat(down(calls, 0), down(attempts, 1),
        up(attempts, 1), up(calls, 0)));
  }

  @Test
  void anAddedModuleThatThrowsOnTheWayDownFailsTheAttemptWhichComesUpFromThere()
      throws Exception {
    FramedServer s = server(FramedServer.echo());
    Role refusing = Role.of("refusing");
    AttemptModule<byte[], byte[]> module = new AttemptModule<>() {
      @Override
      public void enter(AttemptContext<byte[]> attempt) {
        throw new IllegalStateException("refused by the module");
      }
    };
    try (BallastClient<byte[], byte[]> client = BallastClient.framed()
        .endpoints(List.of(s.endpoint()))
        .modules(m -> m.addAfter(Role.BALANCER, refusing, module))
        .trace(recorder).build()) {
      Throwable t = catchThrowable(() -> client.call(new byte[] {9}).get(10, TimeUnit.SECONDS));
      assertThat(t).cause().isInstanceOf(IllegalStateException.class)
          .hasMessage("refused by the module");
      assertThat(s.requests()).isZero();
      assertThat(client.stats().get(0).pending()).as("the pick was cancelled").isZero();
    }
    List<Role> calls = roles(Role.Level.CALL, false);
    List<Role> reached = List.of(Role.BALANCER, refusing);
    assertThat(trace).containsExactlyElementsOf(concat(down(calls, 0), down(reached, 1),
        up(reached, 1), up(calls, 0)));
  }

  @Test
  void editsThatBreakTheOrderFailNamingIt() {
    ModuleOrder<byte[], byte[]> order = new ModuleOrder<>();
    AttemptModule<byte[], byte[]> nothing = new AttemptModule<>() { };
    assertThatThrownBy(() -> order.remove(Role.POOL))
        .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("role: pool");
    assertThatThrownBy(() -> order.moveBefore(Role.CLASSIFIER, Role.METRICS))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("(expected: metrics above classifier)");
    assertThatThrownBy(() -> order.addBefore(Role.BALANCER, Role.of("x"), nothing))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("(expected: balancer first at attempt level)");
    assertThatThrownBy(() -> order.moveAfter(Role.RETRY, Role.HEDGING))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("call-level roles in their order");
    assertThatThrownBy(() -> Role.of("retry"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("role name: 'retry' (expected: not a built-in role's name)");
    assertThat(order.roles()).as("a failed edit leaves the order as it was")
        .isEqualTo(ModuleOrder.BUILT_IN);
    Role x = Role.of("x");
    order.remove(Role.HEDGING).addBefore(Role.CLASSIFIER, x, nothing);
    assertThat(order.roles()).containsExactly(Role.DEADLINE, Role.CALL_FILTERS, Role.RETRY,
        Role.BALANCER, Role.OUTLIER_DETECTION, Role.METRICS, x, Role.CLASSIFIER,
        Role.ATTEMPT_FILTERS, Role.POOL);
  }
}
