package dev.ballast.core.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Numbers, durations and names are read from ASCII text only: digits of other scripts (which
 * Java's number parsers take) and control characters (which {@link String#trim()} drops at the
 * ends) are refused, naming the character; spaces and tabs around a value are still trimmed.
 */
class ValueTextTest {

  @Test
  void digitsOfOtherScriptsAreRefusedNamingTheCharacter() {
    // Arabic-Indic ten, full-width ten, Devanagari three
    assertThatThrownBy(() -> ValueType.DURATION.parse("\u0661\u0660s"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("\u0661\u0660s (expected: a duration such as 10s, 250ms or 1.5m;"
            + " U+0661 at index 0 is not ASCII)");
    assertThatThrownBy(() -> ValueType.DURATION.parse("\uFF11\uFF10ms"))
        .hasMessageContaining("U+FF11 at index 0 is not ASCII");
    assertThatThrownBy(() -> ValueType.INT.parse("\u0969"))
        .hasMessage("\u0969 (expected: an integer; U+0969 at index 0 is not ASCII)");
    assertThatThrownBy(() -> ValueType.DOUBLE.parse("1.\uFF15"))
        .hasMessageContaining("U+FF15 at index 2 is not ASCII");
    assertThatThrownBy(() -> ValueType.BYTES.parse("\uFF11\uFF16MB"))
        .hasMessageContaining("U+FF11 at index 0 is not ASCII");
  }

  /** Durations are shown as configs write them, the longest too (it threw ArithmeticException). */
  @Test
  void durationsAreShownAsWritten() {
    assertThat(ValueType.format(Duration.ofSeconds(10))).isEqualTo("10s");
    assertThat(ValueType.format(Duration.ofMillis(-1))).isEqualTo("-1ms");
    assertThat(ValueType.format(Duration.ofNanos(5))).isEqualTo("5ns");
    assertThat(ValueType.format(Duration.ofSeconds(Long.MAX_VALUE)))
        .isEqualTo(Long.MAX_VALUE + "s");
    assertThat(ValueType.format(Duration.ofSeconds(Long.MAX_VALUE / 1000, 1)))
        .isEqualTo(Long.MAX_VALUE / 1000 + ".000000001s");
    assertThat(ValueType.format(Duration.ofNanos(Long.MAX_VALUE).plusNanos(1)))
        .isEqualTo("9223372036.854775808s");
    assertThat(ValueType.format(Duration.ofSeconds(-9_223_372_036_854_776L, 1_000_000)))
        .isEqualTo("-9223372036854775.999s");
  }

  @Test
  void controlCharactersAreRefusedNotTrimmed() {
    assertThatThrownBy(() -> ValueType.DURATION.parse("10s\u0000"))
        .hasMessage("10s\\u0000 (expected: a duration such as 10s, 250ms or 1.5m;"
            + " control character U+0000 at index 3)");
    assertThatThrownBy(() -> ValueType.INT.parse("\u00007"))
        .hasMessageContaining("control character U+0000 at index 0");
    assertThatThrownBy(() -> ValueType.BOOLEAN.parse("true\r"))
        .hasMessage("true\\u000d (expected: true or false; control character U+000D at index 4)");
    assertThatThrownBy(() -> ValueType.BYTES.parse("16MB\u001F"))
        .hasMessageContaining("control character U+001F at index 4");
    assertThatThrownBy(() -> ValueType.STRING.parse("X-User\u0000"))
        .hasMessage("X-User\\u0000 (expected: a string; control character U+0000 at index 6)");
    assertThatThrownBy(() -> ValueType.STRINGS.parse("zone,ver\u0007sion"))
        .hasMessageContaining("control character U+0007 at index 8");
    assertThatThrownBy(() -> ValueType.STRINGS.parse(List.of("zone", "a\nb")))
        .hasMessageContaining("control character U+000A at index 1");
    assertThatThrownBy(() -> ValueType.STRING_MAP.parse(Map.of("zone", "a\u0000")))
        .hasMessageContaining("control character U+0000 at index 1");
  }

  @Test
  void spacesAndTabsAroundAValueAreTrimmedAndAsciiIsRead() {
    assertThat(ValueType.DURATION.parse(" \t10s\t ")).isEqualTo(Duration.ofSeconds(10));
    assertThat(ValueType.INT.parse(" 42 ")).isEqualTo(42);
    assertThat(ValueType.DOUBLE.parse("1.5e2")).isEqualTo(150.0);
    assertThat(ValueType.BYTES.parse("16MB")).isEqualTo(16 << 20);
    assertThat(ValueType.DURATION.parse("PT1.5S")).isEqualTo(Duration.ofMillis(1500));
    // text options keep other scripts: a label value or a path may be written in any
    assertThat(ValueType.STRING.parse("z\u00FCrich")).isEqualTo("z\u00FCrich");
  }

  @Test
  void theOptionSetNamesTheOptionAndTheValue() {
    assertThatThrownBy(() -> CoreOptions.BALANCER.decode(Map.of("decayTime", "\u0661\u0660s")))
        .isInstanceOf(OptionException.class)
        .hasMessage("decayTime: \u0661\u0660s (expected: a duration such as 10s, 250ms or 1.5m;"
            + " U+0661 at index 0 is not ASCII)");
  }
}
