package dev.ballast.netty.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import org.junit.jupiter.api.Test;

/** {@code Retry-After} as RFC 9110 writes it: seconds, or an HTTP-date in its three forms. */
class HttpClassifierTest {

  // Sun, 06 Nov 1994 08:49:37 GMT: RFC 9110's own example
  private static final long EXAMPLE = ZonedDateTime.parse("1994-11-06T08:49:37Z").toInstant()
      .toEpochMilli();

  @Test
  void delaySecondsAndTheThreeDateForms() {
    assertThat(HttpClassifier.retryAfterMillis("120", 0)).isEqualTo(120_000);
    assertThat(HttpClassifier.retryAfterMillis(" 0 ", 0)).isZero();
    long before = EXAMPLE - 30_000;
    assertThat(HttpClassifier.retryAfterMillis("Sun, 06 Nov 1994 08:49:37 GMT", before))
        .isEqualTo(30_000);
    assertThat(HttpClassifier.retryAfterMillis("Sunday, 06-Nov-94 08:49:37 GMT", before))
        .isEqualTo(30_000);
    assertThat(HttpClassifier.retryAfterMillis("Sun Nov  6 08:49:37 1994", before))
        .isEqualTo(30_000);
  }

  @Test
  void pastDatesNothingAndGarbageMeanNoWait() {
    assertThat(HttpClassifier.retryAfterMillis("Sun, 06 Nov 1994 08:49:37 GMT", EXAMPLE + 1))
        .isZero();
    assertThat(HttpClassifier.retryAfterMillis(null, 0)).isZero();
    assertThat(HttpClassifier.retryAfterMillis("", 0)).isZero();
    assertThat(HttpClassifier.retryAfterMillis("soon", 0)).isZero();
    assertThat(HttpClassifier.retryAfterMillis("-5", 0)).isZero();
  }

  @Test
  void hugeDelaysAreClampedToTheLongestDuration() {
    assertThat(HttpClassifier.retryAfterMillis("99999999999999999999", 0))
        .isEqualTo(Durations.FOREVER.toMillis());
    String inAYear = DateTimeFormatter.RFC_1123_DATE_TIME.format(
        ZonedDateTime.parse("1995-11-06T08:49:37Z"));
    assertThat(HttpClassifier.retryAfterMillis(inAYear, EXAMPLE)).isEqualTo(365L * 86_400_000);
  }
}
