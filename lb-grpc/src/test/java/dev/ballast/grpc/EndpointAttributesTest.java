package dev.ballast.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.core.Endpoint;
import io.grpc.Attributes;
import io.grpc.EquivalentAddressGroup;
import io.grpc.InternalEquivalentAddressGroup;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Weights as grpc-xds hands them to a policy it runs (gRFC A52), beside Ballast's own. */
class EndpointAttributesTest {

  @Test
  void ballastsWeightWinsOverGrpcs() {
    Endpoint e = EndpointAttributes.toEndpoint(group(Attributes.newBuilder()
        .set(EndpointAttributes.WEIGHT, 3).set(EndpointAttributes.LABELS, Map.of("zone", "a"))
        .set(InternalEquivalentAddressGroup.ATTR_WEIGHT, 1L << 30).build()));
    assertThat(e.weight()).isEqualTo(3);
    assertThat(e.zone()).isEqualTo("a");
  }

  @Test
  void grpcsFixedPointSharesAreReadInUnitsOfTwoToTheMinus15() {
    // gRPC's default (A113): locality share x endpoint share, 31 fractional bits; here one
    // locality and endpoint weights 1, 2, 3 of 6
    long one = 1L << 31;
    assertThat(weight(one / 6)).isEqualTo(10923);
    assertThat(weight(2 * one / 6)).isEqualTo(21845);
    assertThat(weight(3 * one / 6)).isEqualTo(32768);
    assertThat(weight(1)).as("a tiny share still counts").isEqualTo(1);
    assertThat(weight(0xFFFF_FFFFL)).isEqualTo(131072);
  }

  @Test
  void noWeightAtAllIsOne() {
    assertThat(EndpointAttributes.toEndpoint(group(Attributes.EMPTY)).weight()).isEqualTo(1);
  }

  private static int weight(long grpcWeight) {
    return EndpointAttributes.toEndpoint(group(Attributes.newBuilder()
        .set(InternalEquivalentAddressGroup.ATTR_WEIGHT, grpcWeight).build())).weight();
  }

  private static EquivalentAddressGroup group(Attributes attrs) {
    return new EquivalentAddressGroup(List.of(new InetSocketAddress("127.0.0.1", 8080)), attrs);
  }
}
