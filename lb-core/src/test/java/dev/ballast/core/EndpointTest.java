package dev.ballast.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The textual form and its checks. The parser held against about 300,000 random and 100
 * handcrafted endpoint strings (issue 18) apart from the cases below marked as such; the fuzz
 * target {@code EndpointFuzzTest} keeps trying it.
 */
class EndpointTest {

  @Test
  void parsesAddressWeightAndSortedLabels() {
    Endpoint e = Endpoint.parse("10.0.0.1:8080;weight=3;zone=us-east;version=v2");
    assertThat(e.host()).isEqualTo("10.0.0.1");
    assertThat(e.port()).isEqualTo(8080);
    assertThat(e.weight()).isEqualTo(3);
    assertThat(e.labels()).containsExactly(Map.entry("version", "v2"), Map.entry("zone", "us-east"));
    assertThat(e.address()).isEqualTo("10.0.0.1:8080");
    assertThat(e).hasToString("10.0.0.1:8080;weight=3;version=v2;zone=us-east");
  }

  @Test
  void weightDefaultsToOneAndIsOmittedWhenFormatting() {
    Endpoint e = Endpoint.parse("backend-1.local:443");
    assertThat(e.weight()).isEqualTo(1);
    assertThat(e.labels()).isEmpty();
    assertThat(e).hasToString("backend-1.local:443");
  }

  @Test
  void ipv6IsBracketed() {
    Endpoint e = Endpoint.parse("[::1]:8080;zone=a");
    assertThat(e.host()).isEqualTo("::1");
    assertThat(e.address()).isEqualTo("[::1]:8080");
    assertThat(Endpoint.parse(e.toString())).isEqualTo(e);
    assertThat(Endpoint.of("fe80::1%eth0", 9000).address()).isEqualTo("[fe80::1%eth0]:9000");
  }

  @Test
  void roundTripsThroughText() {
    Endpoint e = Endpoint.of("h", 1, 7, Map.of("b", "2", "a", "1"));
    assertThat(Endpoint.parse(e.toString())).isEqualTo(e).hasSameHashCodeAs(e);
    assertThat(e.withWeight(2).weight()).isEqualTo(2);
    assertThat(e.withLabels(Map.of()).labels()).isEmpty();
  }

  @Test
  void labelsByPositionFollowKeyOrder() {
    Endpoint e = Endpoint.of("h", 1, 1, Map.of("zone", "a", "app", "x", "version", "v2"));
    assertThat(e.labelCount()).isEqualTo(3);
    for (int i = 0; i < 3; i++) {
      String key = List.copyOf(e.labels().keySet()).get(i);
      assertThat(e.labelKey(i)).isEqualTo(key);
      assertThat(e.labelValue(i)).isEqualTo(e.label(key));
    }
    assertThat(Endpoint.of("h", 1).labelCount()).isZero();
    assertThatThrownBy(() -> e.labelKey(3)).isInstanceOf(IndexOutOfBoundsException.class);
  }

  @Test
  void equalityComparesEveryLabel() {
    Endpoint e = Endpoint.of("h", 1, 1, Map.of("a", "1", "b", "2"));
    assertThat(e).isEqualTo(Endpoint.parse("h:1;b=2;a=1"));
    assertThat(e).isNotEqualTo(Endpoint.of("h", 1, 1, Map.of("a", "1", "b", "3")));
    assertThat(e).isNotEqualTo(Endpoint.of("h", 1, 1, Map.of("a", "1", "c", "2")));
    assertThat(e).isNotEqualTo(Endpoint.of("h", 1, 1, Map.of("a", "1")));
    assertThat(e).isNotEqualTo(e.withWeight(2));
    // equal hashes ("Aa" and "BB" hash alike), so only the labels themselves tell them apart
    Endpoint aa = Endpoint.of("h", 1, 1, Map.of("a", "Aa"));
    Endpoint bb = Endpoint.of("h", 1, 1, Map.of("a", "BB"));
    assertThat(aa.hashCode()).isEqualTo(bb.hashCode());
    assertThat(aa).isNotEqualTo(bb);
    assertThat(Endpoint.of("h", 1, 1, Map.of("Aa", "x"))).isNotEqualTo(
        Endpoint.of("h", 1, 1, Map.of("BB", "x")));
  }

  @Test
  void labelsAreImmutable() {
    Endpoint e = Endpoint.parse("h:1;zone=a");
    assertThatThrownBy(() -> e.labels().put("x", "y"))
        .isInstanceOf(UnsupportedOperationException.class);
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "10.0.0.1:80;weight=-1 | weight: -1 (expected: > 0) in \"10.0.0.1:80;weight=-1\"",
      "10.0.0.1:80;weight=0 | weight: 0 (expected: > 0) in \"10.0.0.1:80;weight=0\"",
      "10.0.0.1:80;weight=x | weight: x (expected: an integer in 1-2147483647)",
      "10.0.0.1:80;weight=99999999999 | weight: 99999999999 (expected: an integer",
      "10.0.0.1:80;=a | label key: empty (expected: a non-empty key)",
      "10.0.0.1:80;zone= | label zone: empty value",
      "10.0.0.1:80;zone | attribute: \"zone\" (expected: key=value)",
      "10.0.0.1:80;zone=a;zone=b | label zone: given twice",
      "10.0.0.1:80;weight=2;weight=3 | weight: given twice",
      "10.0.0.1 | address: 10.0.0.1 (expected: host:port)",
      "10.0.0.1:0 | port: 0 (expected: 1-65535)",
      "10.0.0.1:65536 | port: 65536 (expected: 1-65535)",
      "10.0.0.1:http | port: http (expected: 1-65535)",
      ":80 | host: empty",
      "::1:80 | address: ::1:80 (expected: IPv6 in brackets",
      "[::1]80 | address: [::1]80 (expected: [ipv6]:port)",
      "a b:80 | host: a b (unexpected character ' '; expected ASCII letters",
      "h:80;k y=1 | label key: k y (unexpected character ' ')",
      // other scripts' digits and signs are no port or weight (Integer.parseInt read them)
      "h:\u0668\u0660 | port: \u0668\u0660 (expected: 1-65535)",
      "h:+80 | port: +80 (expected: 1-65535)",
      "h:80;weight=7\u0660 | weight: 7\u0660 (expected: an integer in 1-2147483647)",
      "h:80;weight=+7 | weight: +7 (expected: an integer",
      "h:80;weight=-9999999999 | weight: -9999999999 (expected: > 0)",
      "h\u00f4st:80 | host: h\u00f4st (unexpected character '\u00f4'; expected ASCII letters",
      // IPv6 literals are checked ([:::::] was taken as a host)
      "[:::::]:80 | host: ::::: ('::' more than once",
      "[1:2:3:4:5:6:7:8:9]:80 | host: 1:2:3:4:5:6:7:8:9 (9 groups without '::'",
      "[1:2:3:4:5:6:7::8]:80 | (8 groups beside '::'",
      "[12345::1]:80 | (group '12345' (1-4 hex digits each)",
      "[::g]:80 | (group 'g' with 'g'",
      "[:1::2]:80 | (group '' (1-4 hex digits each)",
      "[::1.2.3]:80 | (IPv4 tail 1.2.3",
      "[::1.2.3.256]:80 | (IPv4 tail 1.2.3.256",
      "[fe80::1%]:80 | (empty zone after '%'",
      // invisible characters in label values are named by code point
      "h:80;zone=a\u007fb | label zone: a\u007fb (unexpected U+007F)",
      "h:80;zone=a\u200bb | label zone: a\u200bb (unexpected U+200B)",
      "h:80;zone=\ufeffa | label zone: \ufeffa (unexpected U+FEFF)",
      "h:80;zone=a\u0000b | label zone: a\u0000b (unexpected U+0000)",
  })
  void badTextNamesTheBadPart(String text, String message) {
    assertThatThrownBy(() -> Endpoint.parse(text))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(message.trim());
  }

  @Test
  void programmaticChecksNameTheBadPart() {
    assertThatThrownBy(() -> Endpoint.of("h", 1, 0, Map.of()))
        .hasMessage("weight: 0 (expected: > 0) in endpoint h:1");
    assertThatThrownBy(() -> Endpoint.of("h", 1, 1, Map.of("", "v")))
        .hasMessageStartingWith("label key: empty");
    assertThatThrownBy(() -> Endpoint.of("h", 1, 1, Map.of("weight", "3")))
        .hasMessageStartingWith("label key: weight (reserved");
    assertThatThrownBy(() -> Endpoint.parse("h:1").withWeight(-2))
        .hasMessageStartingWith("weight: -2 (expected: > 0)");
  }

  @Test
  void parsesListsAndRejectsDuplicateAddresses() {
    List<Endpoint> list = Endpoint.parseList("a:1;weight=2, b:2;zone=x ,, [::1]:3");
    assertThat(list).extracting(Endpoint::address).containsExactly("a:1", "b:2", "[::1]:3");
    assertThatThrownBy(() -> Endpoint.parseList("a:1,a:1;weight=2"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("address: a:1 listed twice");
  }

  @Test
  void hostNamesAreCaseInsensitiveAndKeptInLowerCase() {
    Endpoint upper = Endpoint.parse("LOCALHOST:80;zone=A");
    assertThat(upper).isEqualTo(Endpoint.parse("localhost:80;zone=A"));
    assertThat(upper.address()).isEqualTo("localhost:80");
    assertThat(upper.label("zone")).isEqualTo("A"); // labels keep their case
    assertThat(Endpoint.of("Backend-1.Example.ORG", 443).host()).isEqualTo("backend-1.example.org");
    assertThat(Endpoint.parse("[FE80::A%Eth0]:80").host()).isEqualTo("fe80::a%Eth0");
    assertThatThrownBy(() -> Endpoint.parseList("localhost:80,LOCALHOST:80"))
        .hasMessageStartingWith("address: localhost:80 listed twice");
  }

  @Test
  void validIpv6LiteralsAndLabelValuesPass() {
    for (String host : List.of("::", "::1", "1::", "1:2:3:4:5:6:7:8", "1::8", "1:2:3:4:5:6::8",
        "::ffff:10.0.0.1", "1:2:3:4:5:6:1.2.3.4", "fe80::1%eth0", "ABCD:ef01::")) {
      assertThat(Endpoint.parse("[" + host + "]:80").port()).as(host).isEqualTo(80);
    }
    assertThat(Endpoint.parse("h:80;zone=\u00fcber;emoji=\ud83d\ude00").labelCount()).isEqualTo(2);
    assertThatThrownBy(() -> Endpoint.parse("h:80;zone=a\ud83d"))
        .hasMessageContaining("(unexpected U+D83D)");
  }

  @Test
  void onlyAsciiSpaceAndTabAreTrimmedAndOtherBlanksAreNamed() {
    assertThat(Endpoint.parse(" \th:80 ; zone=a\t;weight=2 ")).isEqualTo(
        Endpoint.of("h", 80, 2, java.util.Map.of("zone", "a")));
    assertThatThrownBy(() -> Endpoint.parse("h:80\u2028"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("address: h:80\u2028 (unexpected U+2028)");
    assertThatThrownBy(() -> Endpoint.parse("h:80;weight=3\u3000"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("weight: 3\u3000 (unexpected U+3000)");
    assertThatThrownBy(() -> Endpoint.parse("\u2029h:80"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("address: \u2029h:80 (unexpected U+2029)");
    assertThatThrownBy(() -> Endpoint.parse("h:80;zone=a\u0085"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("(unexpected U+0085)");
    assertThatThrownBy(() -> Endpoint.parseList("h:80,\u2028,g:81"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("U+2028");
  }

  @Test
  void labelSizesAreBoundedWithAClearError() {
    String huge = "x".repeat(900_000);
    assertThatThrownBy(() -> Endpoint.parse("h:80;zone=" + huge))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("(expected: at most " + Endpoint.MAX_TEXT_CHARS + ")")
        .satisfies(e -> assertThat(e.getMessage()).hasSizeLessThan(600));
    String longValue = "v".repeat(Endpoint.MAX_LABEL_VALUE_CHARS + 1);
    assertThatThrownBy(() -> Endpoint.parse("h:80;zone=" + longValue))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("label zone: a value of " + longValue.length()
            + " characters (expected: at most " + Endpoint.MAX_LABEL_VALUE_CHARS + ")")
        .satisfies(e -> assertThat(e.getMessage()).hasSizeLessThan(600));
    assertThatThrownBy(() -> Endpoint.of("h", 80, 1, java.util.Map.of("zone", huge)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("label zone: a value of 900000 characters (expected: at most");
    String longKey = "k".repeat(Endpoint.MAX_LABEL_KEY_CHARS + 1);
    assertThatThrownBy(() -> Endpoint.of("h", 80, 1, java.util.Map.of(longKey, "a")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("label key: " + longKey.length() + " characters (expected: at most "
            + Endpoint.MAX_LABEL_KEY_CHARS + ")");
    assertThat(Endpoint.parse("h:80;zone=" + "v".repeat(Endpoint.MAX_LABEL_VALUE_CHARS))
        .label("zone")).hasSize(Endpoint.MAX_LABEL_VALUE_CHARS);
  }
}
