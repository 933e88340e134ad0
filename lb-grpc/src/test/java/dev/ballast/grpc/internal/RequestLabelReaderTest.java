package dev.ballast.grpc.internal;

import static dev.ballast.grpc.internal.FakeHelper.headers;
import static dev.ballast.grpc.internal.FakeHelper.pickArgs;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.core.subset.RequestLabels;
import io.grpc.CallOptions;
import io.grpc.Metadata;
import java.util.List;
import org.junit.jupiter.api.Test;

/** How label_subset reads request labels from headers and the call option. */
class RequestLabelReaderTest {

  private static final CallOptions.Key<RequestLabels> KEY = CallOptions.Key.create("test");
  private final RequestLabelReader reader = new RequestLabelReader(
      List.of(List.of("zone"), List.of("version", "zone")), "x-lb-", KEY);

  @Test
  void oneHeaderIsOneLabelServedFromTheCache() {
    RequestLabels first = reader.read(pickArgs(headers("x-lb-zone", "b"), CallOptions.DEFAULT));
    RequestLabels second = reader.read(pickArgs(headers("x-lb-zone", "b"), CallOptions.DEFAULT));

    assertThat(first).isEqualTo(RequestLabels.of("zone", "b"));
    assertThat(second).isSameAs(first);
  }

  @Test
  void severalHeadersMakeSeveralLabelsAndOthersAreIgnored() {
    RequestLabels labels = reader.read(pickArgs(headers("x-lb-zone", "a", "x-lb-version", "v2",
        "x-lb-shard", "7", "zone", "c"), CallOptions.DEFAULT));

    assertThat(labels).isEqualTo(RequestLabels.of("version", "v2", "zone", "a"));
  }

  @Test
  void emptyOrAbsentHeadersMeanNoLabels() {
    assertThat(reader.read(pickArgs(headers("x-lb-zone", ""), CallOptions.DEFAULT)).isEmpty())
        .isTrue();
    assertThat(reader.read(pickArgs(new Metadata(), CallOptions.DEFAULT)).isEmpty()).isTrue();
  }

  @Test
  void callOptionWinsOverHeaders() {
    RequestLabels set = RequestLabels.of("zone", "a");

    assertThat(reader.read(pickArgs(headers("x-lb-zone", "b"), CallOptions.DEFAULT.withOption(KEY,
        set)))).isSameAs(set);
  }

  @Test
  void manyValuesShareABoundedCacheAndEachReadsRight() {
    for (int i = 0; i < 10 * RequestLabelReader.CACHE_SIZE; i++) {
      assertThat(reader.read(pickArgs(headers("x-lb-zone", "z" + i), CallOptions.DEFAULT)))
          .isEqualTo(RequestLabels.of("zone", "z" + i));
    }
    // A value read again at once comes from its slot; one whose slot another value took since
    // is read anew, and equal.
    RequestLabels late1 = reader.read(pickArgs(headers("x-lb-zone", "late"), CallOptions.DEFAULT));
    RequestLabels late2 = reader.read(pickArgs(headers("x-lb-zone", "late"), CallOptions.DEFAULT));
    assertThat(late2).isSameAs(late1);
    for (int i = 0; i < 10 * RequestLabelReader.CACHE_SIZE; i++) {
      reader.read(pickArgs(headers("x-lb-zone", "y" + i), CallOptions.DEFAULT));
    }
    assertThat(reader.read(pickArgs(headers("x-lb-zone", "late"), CallOptions.DEFAULT)))
        .isEqualTo(late1);
  }
}
