package dev.ballast.soak;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The soak's checks. The 60-second run is tagged {@code soak}, which the test gate leaves out
 * (random, time-boxed work runs on demand: {@code ./ballast soak}, or {@code mvn verify -pl
 * benchmarks -Dsoak.excluded=none -Dtest=SoakTest}); the flag checks run in the gate.
 */
class SoakTest {

  /**
   * A minute of real framed and gRPC servers on 127.0.0.1 under the chaos loop, Netty at its
   * paranoid leak level: every check of the soak must hold, and the chaos must really have
   * happened.
   */
  @Test
  @Tag("soak")
  void aMinuteOfChaosKeepsEveryPromise() throws Exception {
    SoakResult r = Soak.run(Soak.Config.of(Duration.ofSeconds(60)), System.out);

    assertThat(r.failures()).isEmpty();
    assertThat(LeakRecorder.installed).as("the recording leak detector is in use").isTrue();
    // The load ran on both sides, and calls got answers through the chaos.
    assertThat(r.sides()).allSatisfy(t -> {
      assertThat(t.started()).isGreaterThan(1_000);
      assertThat(t.outcomes().get("ok")).isGreaterThan(100L);
    });
    assertThat(r.chaos()).containsKeys("framed kill", "framed corrupt", "framed stall",
        "framed slow", "framed invalid update refused", "framed update: reweight", "grpc kill",
        "grpc restart", "grpc invalid update published", "grpc update: remove");
  }

  @Test
  void flagsAreCheckedAndNamed() {
    assertThat(Soak.Config.parse(new String[] {"--minutes", "10"}).duration())
        .isEqualTo(Duration.ofMinutes(10));
    assertThat(Soak.Config.parse(new String[] {"--seconds=30", "--seed", "7"}))
        .extracting(Soak.Config::duration, Soak.Config::seed)
        .containsExactly(Duration.ofSeconds(30), 7L);
    org.assertj.core.api.Assertions.assertThatThrownBy(
        () -> Soak.Config.parse(new String[] {"--minutes", "0"}))
        .hasMessage("--minutes: 0 (expected: 1-10000)");
    org.assertj.core.api.Assertions.assertThatThrownBy(
        () -> Soak.Config.parse(new String[] {"--hours", "1"}))
        .hasMessage("flag: --hours (expected: --minutes, --seconds or --seed)");
  }
}
