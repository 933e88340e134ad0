package dev.ballast.netty.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.netty.outlier.OutlierDetection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** Deterministic: a fake ticker and a seeded random. */
class EjectionsTest {

  private long now = 1_000_000_000L;
  private final List<String> events = new ArrayList<>();
  private final List<Long> durations = new ArrayList<>();

  private Ejections detector(OutlierDetection config) {
    return new Ejections(config, () -> now, new SplittableRandom(42),
        new Ejections.Listener() {
          @Override
          public void ejected(Ejections.Host host, long nanos, String reason) {
            events.add("eject " + host.address + " (" + reason + ")");
            durations.add(nanos);
          }

          @Override
          public void reinstated(Ejections.Host host) {
            events.add("back " + host.address);
          }
        });
  }

  private static OutlierDetection.Builder config() {
    return OutlierDetection.builder().baseEjectionTime(Duration.ofSeconds(1))
        .maxEjectionTime(Duration.ofSeconds(30)).jitter(0.2);
  }

  @Test
  void fiveConsecutiveFailuresEject() {
    Ejections d = detector(config().successRateThreshold(0).build());
    Ejections.Host a = d.add("a:1");
    d.add("b:1");
    for (int i = 0; i < 4; i++) {
      d.record(a, false);
    }
    d.record(a, true); // a success resets the run
    for (int i = 0; i < 4; i++) {
      d.record(a, false);
    }
    assertThat(a.isEjected()).isFalse();
    d.record(a, false);
    assertThat(a.isEjected()).isTrue();
    assertThat(events).containsExactly("eject a:1 (5 consecutive failures)");
    assertThat(d.ejectedCount()).isEqualTo(1);
  }

  @Test
  void lowSuccessRateEjects() {
    Ejections d = detector(config().successRateThreshold(0.5).successRateMinRequests(20)
        .build());
    Ejections.Host a = d.add("a:1");
    d.add("b:1");
    // success, failure, failure, ... : never 5 in a row, success rate 1/3
    for (int i = 0; i < 19; i++) {
      d.record(a, i % 3 == 0);
    }
    assertThat(a.isEjected()).isFalse();
    d.record(a, false);
    assertThat(a.isEjected()).isTrue();
    assertThat(events.get(0)).startsWith("eject a:1 (success rate 7/20 below 0.5");
  }

  @Test
  void backOffGrowsWithJitterAndEndsOnTime() {
    Ejections d = detector(config().successRateThreshold(0).build());
    Ejections.Host a = d.add("a:1");
    d.add("b:1");
    long base = Duration.ofSeconds(1).toNanos();
    for (int round = 1; round <= 4; round++) {
      for (int i = 0; i < 5; i++) {
        d.record(a, false);
      }
      assertThat(a.isEjected()).isTrue();
      long dur = durations.get(round - 1);
      long nominal = base << (round - 1);
      assertThat(dur).isBetween((long) (nominal * 0.8), (long) (nominal * 1.2));
      now += dur - 1;
      assertThat(d.reinstateExpired()).isEmpty();
      now += 1;
      assertThat(d.reinstateExpired()).containsExactly(a);
      assertThat(a.isEjected()).isFalse();
    }
    // durations grow: about 1, 2, 4, 8 s
    assertThat(durations.get(3)).isGreaterThan(durations.get(1));
    assertThat(durations.get(2)).isGreaterThan(durations.get(0));
  }

  @Test
  void ejectionTimeIsCapped() {
    Ejections d = detector(config().successRateThreshold(0).build());
    long max = Duration.ofSeconds(30).toNanos();
    for (int n = 1; n < 70; n++) {
      assertThat(d.ejectionNanos(n)).isPositive().isLessThanOrEqualTo(max);
    }
    assertThat(d.ejectionNanos(60)).isGreaterThanOrEqualTo((long) (max * 0.8));
  }

  @Test
  void neverEjectsMoreThanTheMaxShare() {
    Ejections d = detector(config().successRateThreshold(0).maxEjectionPercent(50)
        .build());
    List<Ejections.Host> hosts = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      hosts.add(d.add("h:" + i));
    }
    for (Ejections.Host h : hosts) {
      for (int i = 0; i < 10; i++) {
        d.record(h, false);
      }
    }
    assertThat(d.ejectedCount()).isEqualTo(2); // 50% of 5, rounded down
    assertThat(hosts.stream().filter(Ejections.Host::isEjected)).hasSize(2);
  }

  @Test
  void oneOfTwoMayGoButNotTheOnlyOneAndAHostHeldBackGoesOnceThereIsRoom() {
    Ejections d = detector(config().successRateThreshold(0).maxEjectionPercent(10)
        .build());
    Ejections.Host a = d.add("a:1");
    Ejections.Host b = d.add("b:1");
    for (int i = 0; i < 5; i++) {
      d.record(a, false);
      d.record(b, false);
    }
    assertThat(d.ejectedCount()).isEqualTo(1);
    // a went first; b, past the threshold too, is held back by the cap (one of two)
    assertThat(a.isEjected()).isTrue();
    assertThat(b.isEjected()).isFalse();
    now += Duration.ofMinutes(10).toNanos();
    assertThat(d.reinstateExpired()).containsExactly(a);
    d.record(b, false);
    assertThat(b.isEjected()).isTrue();
    d.remove(b);
    assertThat(d.ejectedCount()).isZero();
    for (int i = 0; i < 10; i++) {
      d.record(a, false); // alone now: the only host never goes
    }
    assertThat(a.isEjected()).isFalse();
  }

  @Test
  void disabledNeverEjects() {
    Ejections d = detector(OutlierDetection.disabled());
    Ejections.Host a = d.add("a:1");
    d.add("b:1");
    for (int i = 0; i < 100; i++) {
      d.record(a, false);
    }
    assertThat(a.isEjected()).isFalse();
  }
}
