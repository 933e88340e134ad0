package dev.ballast.netty;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.ballast.core.Algorithm;
import dev.ballast.core.Endpoint;
import dev.ballast.netty.error.BallastException;
import dev.ballast.netty.error.ConnectFailedException;
import dev.ballast.netty.error.DeadlineExceededException;
import dev.ballast.netty.error.ProtocolErrorException;
import dev.ballast.netty.framed.FrameTooLargeException;
import dev.ballast.netty.framed.FramedServer;
import dev.ballast.netty.framed.MalformedFrameException;
import dev.ballast.netty.outlier.OutlierDetection;
import dev.ballast.netty.testing.Await;
import dev.ballast.netty.testing.RawServer;
import dev.ballast.netty.testing.RefusedPort;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Item 3: refused, stalled, garbage and oversized answers each give their typed error. */
class FailureModesTest {

  private FramedServer good;

  @BeforeEach
  void start() {
    good = FramedServer.start(FramedServer.echo());
  }

  @AfterEach
  void stop() {
    good.close();
  }

  private static BallastClient.Builder<byte[], byte[]> client(Endpoint bad, Endpoint good) {
    return BallastClient.framed()
        .endpoints(List.of(bad, good))
        .balancer(Algorithm.ROUND_ROBIN)
        .timeout(Duration.ofSeconds(5))
        .maxAttempts(1)
        .outlierDetection(OutlierDetection.disabled());
  }

  private static Throwable failure(CompletableFuture<byte[]> f) throws Exception {
    try {
      f.get(20, TimeUnit.SECONDS);
      return null;
    } catch (ExecutionException e) {
      return e.getCause();
    }
  }

  @Test
  void connectionRefusedIsTypedAndRetriedElsewhere() throws Exception {
    try (RefusedPort port = new RefusedPort()) {
      connectionRefused(port.endpoint());
    }
  }

  private void connectionRefused(Endpoint refused) throws Exception {
    try (BallastClient<byte[], byte[]> c = client(refused, good.endpoint()).build()) {
      Throwable t = null;
      for (int i = 0; i < 2 && t == null; i++) {
        t = failure(c.call(new byte[] {1}));
      }
      assertThat(t).isInstanceOf(ConnectFailedException.class);
      BallastException b = (BallastException) t;
      assertThat(b.endpoint()).isEqualTo(refused.address());
      assertThat(b.attempt()).isEqualTo(1);
      assertThat(b.reachedServer()).isFalse();
      assertThat(b.getMessage()).contains(refused.address()).contains("attempt 1");
    }
    // With retries, the refused endpoint costs nothing: every call succeeds on the other one.
    long before = good.requests();
    try (BallastClient<byte[], byte[]> c = client(refused, good.endpoint()).maxAttempts(3)
        .build()) {
      for (int i = 0; i < 20; i++) {
        assertThat(c.call(new byte[] {(byte) i}).get(10, TimeUnit.SECONDS))
            .containsExactly((byte) i);
      }
      assertThat(good.requests() - before).isEqualTo(20);
    }
  }

  @Test
  void stalledBackendHitsTheDeadlineAndOthersKeepServing() throws Exception {
    try (FramedServer stall = FramedServer.start(req -> new CompletableFuture<>());
        BallastClient<byte[], byte[]> c = client(stall.endpoint(), good.endpoint())
            .timeout(Duration.ofSeconds(1)).build()) {
      int deadlines = 0;
      int ok = 0;
      // The ten calls go out together, so the test waits out one deadline, not five: round
      // robin still sends five to each, and each endpoint's pool opens one connection (its
      // other callers wait for the opening one rather than open more).
      List<CompletableFuture<byte[]>> calls = new ArrayList<>();
      for (int i = 0; i < 10; i++) {
        calls.add(c.call(new byte[] {(byte) i}));
      }
      for (CompletableFuture<byte[]> call : calls) {
        Throwable t = failure(call);
        if (t == null) {
          ok++;
        } else {
          assertThat(t).isInstanceOf(DeadlineExceededException.class);
          DeadlineExceededException d = (DeadlineExceededException) t;
          assertThat(d.endpoint()).isEqualTo(stall.endpoint().address());
          assertThat(d.reachedServer()).isTrue();
          assertThat(d.timeout()).isEqualTo(Duration.ofSeconds(1));
          deadlines++;
        }
      }
      assertThat(ok).isEqualTo(5);
      assertThat(deadlines).isEqualTo(5);
      // A framed connection survives abandoned requests: still one connection to each.
      assertThat(stall.connections()).isEqualTo(1);
      assertThat(good.connections()).isEqualTo(1);
      // A deadline frees the caller, not the server: the stalled requests stay pending on
      // their node, awaiting late answers, until the stalled server's connection closes.
      assertThat(c.lateAnswersAwaited()).isEqualTo(5);
      assertThat(c.stats()).anySatisfy(s -> {
        assertThat(s.address()).isEqualTo(stall.endpoint().address());
        assertThat(s.pending()).isEqualTo(5);
        assertThat(s.inFlight()).isEqualTo(5);
      });
      stall.close();
      Await.until(Duration.ofSeconds(5), () -> c.stats().toString(),
          () -> c.stats().stream().allMatch(s -> s.pending() == 0 && s.inFlight() == 0));
      assertThat(c.lateAnswersAwaited()).isZero();
    }
  }

  @Test
  void garbageClosesOnlyThatConnection() throws Exception {
    byte[] garbage = {0, 0, 0, 9, 7, 0, 0, 0, 0, 0, 0, 0, 1}; // length 9, type 7
    checkBadAnswer(RawServer.start(garbage), MalformedFrameException.class);
  }

  @Test
  void shortLengthIsMalformed() throws Exception {
    checkBadAnswer(RawServer.start(new byte[] {0, 0, 0, 2, 'x', 'x'}),
        MalformedFrameException.class);
  }

  @Test
  void oversizedFrameClosesOnlyThatConnection() throws Exception {
    try (FramedServer big = FramedServer.start(
        req -> CompletableFuture.completedFuture(new byte[4096]));
        BallastClient<byte[], byte[]> c = client(big.endpoint(), good.endpoint())
            .maxFrameSize(1024).build()) {
      Throwable bad = null;
      for (int i = 0; i < 2; i++) {
        Throwable t = failure(c.call(new byte[] {(byte) i}));
        if (t != null) {
          bad = t;
        }
      }
      assertThat(bad).isInstanceOf(ProtocolErrorException.class)
          .hasCauseInstanceOf(FrameTooLargeException.class);
      assertThat(((BallastException) bad).endpoint()).isEqualTo(big.endpoint().address());
      Await.until(Duration.ofSeconds(5), () -> "big connections " + big.connections(),
          () -> big.connections() == 0);
      assertThat(good.connections()).isEqualTo(1);
      for (int i = 0; i < 4; i++) {
        c.call(new byte[] {1}).handle((r, e) -> null).get(10, TimeUnit.SECONDS);
      }
      assertThat(good.requests()).isEqualTo(3);
      assertThat(good.connections()).isEqualTo(1);
    }
  }

  private void checkBadAnswer(RawServer raw, Class<? extends Throwable> cause) throws Exception {
    try (raw; BallastClient<byte[], byte[]> c = client(raw.endpoint(), good.endpoint()).build()) {
      Throwable bad = null;
      for (int i = 0; i < 2; i++) {
        Throwable t = failure(c.call(new byte[] {(byte) i}));
        if (t != null) {
          bad = t;
        }
      }
      assertThat(bad).isInstanceOf(ProtocolErrorException.class).hasCauseInstanceOf(cause);
      assertThat(((BallastException) bad).endpoint()).isEqualTo(raw.endpoint().address());
      Await.until(Duration.ofSeconds(5), () -> "raw connections " + raw.connections(),
          () -> raw.connections() == 0);
      assertThat(good.connections()).isEqualTo(1);
      assertThat(good.requests()).isEqualTo(1);
      // The next call to the bad endpoint opens a new connection and fails the same way.
      Throwable again = null;
      for (int i = 0; i < 2; i++) {
        Throwable t = failure(c.call(new byte[] {(byte) i}));
        if (t != null) {
          again = t;
        }
      }
      assertThat(again).isInstanceOf(ProtocolErrorException.class);
      assertThat(raw.accepted()).isEqualTo(2);
      assertThat(good.requests()).isEqualTo(2);
      assertThat(good.connections()).isEqualTo(1);
    }
  }
}
