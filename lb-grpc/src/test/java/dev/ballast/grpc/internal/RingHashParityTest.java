package dev.ballast.grpc.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.core.internal.XxHash64;
import dev.ballast.grpc.BallastRingHashLoadBalancerProvider;
import dev.ballast.grpc.EndpointAttributes;
import io.grpc.Attributes;
import io.grpc.CallOptions;
import io.grpc.ConnectivityState;
import io.grpc.EquivalentAddressGroup;
import io.grpc.InternalEquivalentAddressGroup;
import io.grpc.LoadBalancer;
import io.grpc.LoadBalancerProvider;
import io.grpc.Status;
import java.lang.reflect.Method;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * ballast_ring_hash against gRPC-java's own ring_hash (grpc-xds, driven through its provider and
 * picker): 10,000 keys on each of three address sets must reach the same address.
 */
class RingHashParityTest {

  private static final String HEADER = "x-ring-key";

  @ParameterizedTest
  @ValueSource(strings = {"three-equal", "twenty-weighted", "hundred-mixed"})
  void tenThousandKeysReachTheAddressGrpcJavaPicks(String set) throws Exception {
    List<EquivalentAddressGroup> groups = addresses(set);
    Map<String, Object> config = new HashMap<>();
    config.put("requestHashHeader", HEADER);
    if (set.equals("hundred-mixed")) {
      config.put("minRingSize", 4096.0);
      config.put("maxRingSize", 4096.0);
    }
    LoadBalancer.SubchannelPicker ours = ballastPicker(groups, config);
    SplittableRandom random = new SplittableRandom(set.hashCode());
    int mismatches = 0;
    List<String> examples = new ArrayList<>();
    try (GrpcRingHash grpc = GrpcRingHash.start(groups, config, HEADER)) {
      for (int i = 0; i < 10_000; i++) {
        String key = key(random);
        SocketAddress expected = grpc.pick(key);
        SocketAddress actual = pick(ours, key);
        assertThat(expected).as("gRPC-java's pick of %s", key).isNotNull();
        if (!expected.equals(actual)) {
          mismatches++;
          if (examples.size() < 5) {
            examples.add(key + ": gRPC " + expected + ", ours " + actual);
          }
        }
      }
    }
    assertThat(mismatches).as("keys placed elsewhere than by gRPC-java, e.g. %s", examples)
        .isZero();
  }

  @Test
  void xxHash64IsGrpcJavasOnEveryLengthUpToThreeStripes() throws Exception {
    Class<?> c = Class.forName("io.grpc.xds.XxHash64");
    java.lang.reflect.Field f = c.getDeclaredField("INSTANCE");
    f.setAccessible(true);
    Object instance = f.get(null);
    Method hashBytes = c.getDeclaredMethod("hashBytes", byte[].class);
    hashBytes.setAccessible(true);
    SplittableRandom random = new SplittableRandom(3);
    for (int len = 0; len <= 100; len++) {
      byte[] b = new byte[len];
      random.nextBytes(b);
      assertThat(XxHash64.hash(b, 0, len, 0)).as("length %d", len)
          .isEqualTo((long) hashBytes.invoke(instance, (Object) b));
    }
  }

  /** Keys of 1 to 80 printable ASCII characters, past xxHash64's 32-byte stripes. */
  private static String key(SplittableRandom random) {
    int len = 1 + random.nextInt(80);
    byte[] b = new byte[len];
    for (int i = 0; i < len; i++) {
      b[i] = (byte) (33 + random.nextInt(94));
    }
    return new String(b, StandardCharsets.US_ASCII);
  }

  private static SocketAddress pick(LoadBalancer.SubchannelPicker picker, String key) {
    LoadBalancer.PickResult r = picker.pickSubchannel(
        FakeHelper.pickArgs(FakeHelper.headers(HEADER, key), CallOptions.DEFAULT));
    return r.getSubchannel() == null ? null
        : r.getSubchannel().getAllAddresses().get(0).getAddresses().get(0);
  }

  private static LoadBalancer.SubchannelPicker ballastPicker(List<EquivalentAddressGroup> groups,
      Map<String, ?> config) {
    LoadBalancerProvider provider = new BallastRingHashLoadBalancerProvider();
    FakeHelper helper = new FakeHelper();
    LoadBalancer lb = provider.newLoadBalancer(helper);
    Status[] out = new Status[1];
    // in the channel's synchronization context, as a channel calls a policy
    helper.syncContext.execute(() -> out[0] = lb.acceptResolvedAddresses(
        LoadBalancer.ResolvedAddresses.newBuilder()
            .setAddresses(groups)
            .setLoadBalancingPolicyConfig(
                provider.parseLoadBalancingPolicyConfig(config).getConfig())
            .build()));
    Status s = out[0];
    assertThat(s.isOk()).as("%s", s).isTrue();
    for (FakeHelper.FakeSubchannel sc : helper.subchannels) {
      sc.set(ConnectivityState.READY);
    }
    assertThat(helper.state).isEqualTo(ConnectivityState.READY);
    return helper.picker;
  }

  /**
   * The three sets: 3 loopback ports of equal weight; 20 addresses weighted 2 to 4 (17.5
   * entries per unit of weight); 100 addresses mixing IPv4, IPv6 and resolved host names,
   * weighted 1 to 10, on a ring capped at 4096. In the last two, endpoints' targets are fractional,
   * so which endpoint gets a spare entry follows gRPC-java's order of endpoints. Weights go both
   * to gRPC's attribute and to Ballast's.
   */
  static List<EquivalentAddressGroup> addresses(String set) throws Exception {
    List<EquivalentAddressGroup> groups = new ArrayList<>();
    switch (set) {
      case "three-equal":
        for (int i = 0; i < 3; i++) {
          groups.add(group(new InetSocketAddress("127.0.0.1", 50051 + i), 1));
        }
        break;
      case "twenty-weighted":
        for (int i = 0; i < 20; i++) {
          groups.add(group(new InetSocketAddress("10.1.0." + (i + 1), 8443), 2 + i % 3));
        }
        break;
      default:
        SplittableRandom r = new SplittableRandom(100);
        for (int i = 0; i < 100; i++) {
          byte[] v4 = {10, (byte) r.nextInt(256), (byte) r.nextInt(256), (byte) (1 + i)};
          SocketAddress a;
          if (i % 5 == 3) {
            a = new InetSocketAddress(InetAddress.getByName("2001:db8::" + Integer.toHexString(i)),
                443 + i);
          } else if (i % 5 == 4) {
            a = new InetSocketAddress(InetAddress.getByAddress("svc-" + i + ".example", v4), 443);
          } else {
            a = new InetSocketAddress(InetAddress.getByAddress(v4), 1024 + r.nextInt(60000));
          }
          groups.add(group(a, 1 + r.nextInt(10)));
        }
    }
    return groups;
  }

  private static EquivalentAddressGroup group(SocketAddress a, int weight) {
    return new EquivalentAddressGroup(List.of(a), Attributes.newBuilder()
        .set(InternalEquivalentAddressGroup.ATTR_WEIGHT, (long) weight)
        .set(EndpointAttributes.WEIGHT, weight)
        .build());
  }
}
