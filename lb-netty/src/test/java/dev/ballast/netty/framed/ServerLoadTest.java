package dev.ballast.netty.framed;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.DoubleSupplier;
import org.junit.jupiter.api.Test;

/** A sampled load report: what each sample sends, and what a bad source sends (none). */
class ServerLoadTest {

  private final AtomicReference<DoubleSupplier> source = new AtomicReference<>(() -> 0.5);
  private final ServerLoad load =
      ServerLoad.sampled(() -> source.get().getAsDouble(), 1_000_000_000L);

  private String report() {
    byte[] b = load.report();
    return b == null ? null : new String(b, StandardCharsets.UTF_8);
  }

  @Test
  void aUtilizationAboveOneIsReportedAsItIs() {
    source.set(() -> 1.5);
    load.sample();
    assertThat(report()).startsWith("TEXT cpu_utilization=1.5,");
  }

  @Test
  void aBadValueOrAFailingSourceSendsNoReportUntilTheNextGoodSample() {
    load.sample();
    assertThat(report()).startsWith("TEXT cpu_utilization=0.5,");
    source.set(() -> Double.NaN);
    load.sample();
    assertThat(report()).isNull();
    source.set(() -> {
      throw new IllegalStateException("no reading");
    });
    load.sample(); // does not throw: a periodic task that throws is never run again
    assertThat(report()).isNull();
    source.set(() -> 0.25);
    load.sample();
    assertThat(report()).startsWith("TEXT cpu_utilization=0.25,");
  }

  @Test
  void eachServerOfOneBuilderCountsItsOwnAnswers() {
    FramedServer.Builder b = FramedServer.builder().reportLoad(() -> 0.5,
        java.time.Duration.ofSeconds(1));
    try (FramedServer one = b.start(); FramedServer two = b.start()) {
      assertThat(one.load()).isNotSameAs(two.load());
    }
  }
}
