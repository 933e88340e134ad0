package dev.ballast.netty;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.netty.retry.RetryBudget;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Deterministic: a fake ticker. */
class RetryBudgetTest {

  private long now;

  @Test
  void reserveAllowsMinRetriesPerSecondTimesTtl() {
    RetryBudget b = RetryBudget.create(Duration.ofSeconds(10), 10, 0.2, () -> now);
    assertThat(b.balance()).isEqualTo(100);
    int granted = 0;
    for (int i = 0; i < 200; i++) {
      if (b.tryWithdraw()) {
        granted++;
      }
    }
    assertThat(granted).isEqualTo(100);
    assertThat(b.tryWithdraw()).isFalse();
  }

  @Test
  void twentyPercentOfRequestsMayBeRetried() {
    RetryBudget b = RetryBudget.create(Duration.ofSeconds(10), 0, 0.2, () -> now);
    for (int i = 0; i < 1000; i++) {
      b.deposit();
    }
    int granted = 0;
    while (b.tryWithdraw()) {
      granted++;
    }
    assertThat(granted).isEqualTo(200);
  }

  @Test
  void depositsExpireAfterTheTtl() {
    RetryBudget b = RetryBudget.create(Duration.ofSeconds(10), 0, 0.5, () -> now);
    for (int i = 0; i < 100; i++) {
      b.deposit();
    }
    assertThat(b.balance()).isEqualTo(50);
    now += Duration.ofSeconds(5).toNanos();
    assertThat(b.balance()).isEqualTo(50);
    now += Duration.ofSeconds(5).toNanos();
    assertThat(b.balance()).isZero();
    assertThat(b.tryWithdraw()).isFalse();
  }

  @Test
  void depositsExpireWithTheirOwnSlice() {
    RetryBudget b = RetryBudget.create(Duration.ofSeconds(10), 0, 0.5, () -> now);
    for (int i = 0; i < 100; i++) {
      b.deposit();
    }
    now += Duration.ofSeconds(5).toNanos();
    for (int i = 0; i < 40; i++) {
      b.deposit(); // a later slice: the first one's deposits must not move into it
    }
    assertThat(b.balance()).isEqualTo(70);
    now += Duration.ofSeconds(5).toNanos();
    assertThat(b.balance()).isEqualTo(20);
    now += Duration.ofSeconds(5).toNanos();
    assertThat(b.balance()).isZero();
  }

  @Test
  void depositsFromManyThreadsAllCount() throws InterruptedException {
    RetryBudget b = RetryBudget.create(Duration.ofSeconds(10), 0, 0.5, () -> now);
    Thread[] threads = new Thread[4];
    for (int t = 0; t < threads.length; t++) {
      threads[t] = new Thread(() -> {
        for (int i = 0; i < 10_000; i++) {
          b.deposit();
        }
      });
      threads[t].start();
    }
    for (Thread t : threads) {
      t.join();
    }
    assertThat(b.balance()).isEqualTo(20_000);
  }

  @Test
  void withdrawalsExpireToo() {
    RetryBudget b = RetryBudget.create(Duration.ofSeconds(1), 10, 0.2, () -> now);
    assertThat(b.balance()).isEqualTo(10);
    while (b.tryWithdraw()) {
      // drain the reserve
    }
    now += Duration.ofSeconds(1).toNanos();
    assertThat(b.balance()).isEqualTo(10);
  }

  @Test
  void finagleDefaultsAndNone() {
    assertThat(RetryBudget.create().toString())
        .isEqualTo("RetryBudget{ttl=PT10S, minRetriesPerSec=10, percentCanRetry=0.2}");
    RetryBudget none = RetryBudget.none();
    none.deposit();
    assertThat(none.tryWithdraw()).isFalse();
  }

  @Test
  void argumentsAreChecked() {
    assertThatThrownBy(() -> RetryBudget.create(Duration.ofSeconds(10), -1, 0.2, () -> now))
        .hasMessage("minRetriesPerSec: -1 (expected: >= 0)");
    assertThatThrownBy(() -> RetryBudget.create(Duration.ofSeconds(10), 1, 1.5, () -> now))
        .hasMessage("percentCanRetry: 1.5 (expected: in [0, 1])");
    assertThatThrownBy(() -> RetryBudget.create(Duration.ofMillis(10), 1, 0.2, () -> now))
        .hasMessageStartingWith("ttl: PT0.01S (expected: in [1 s, 60 s])");
  }
}
