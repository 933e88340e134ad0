package dev.ballast.grpc.internal;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.ballast.core.Endpoint;
import dev.ballast.grpc.EndpointAttributes;
import io.grpc.ConnectivityState;
import io.grpc.EquivalentAddressGroup;
import io.grpc.LoadBalancer;
import io.grpc.LoadBalancerProvider;
import io.grpc.LoadBalancerRegistry;
import io.grpc.NameResolver.ConfigOrError;
import io.grpc.Status;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Fuzz target (Jazzer) for every policy's service-config parser, and for the policy fed what
 * the parser accepts: JSON-shaped values (as gRPC's parser makes them: maps, lists, strings,
 * doubles, booleans, nulls) built from the fuzzer's bytes, with field names and values of our
 * configs mixed in. A parser returns a config or an error naming the policy, never throws; a
 * policy given an accepted config and a list of endpoints (some with weights or labels its
 * algorithm may refuse) answers with a status, never an exception, and picks never throw.
 */
class ServiceConfigFuzzTest {

  private static final String[] POLICIES = {"vnswrr", "swrr", "weighted_random", "least_loaded",
      "p2c_peak_ewma", "label_subset"};
  private static final String[] WORDS = {"selectors", "fallbackPolicy", "defaultSubset",
      "headerPrefix", "allowRedundantKeys", "childPolicy", "decayTime", "defaultRtt", "maxFails",
      "zone", "version", "NO_FALLBACK", "ANY_ENDPOINT", "DEFAULT_SUBSET", "x-lb-", "10s", "30ms",
      "0.5s", "1h", "2562047.79h", "vnswrr", "swrr", "weighted_random", "least_loaded",
      "p2c_peak_ewma", "round_robin", "pick_first", "\u0130", "a"};

  @FuzzTest
  void parseAndApply(FuzzedDataProvider data) {
    String policy = data.pickValue(POLICIES);
    LoadBalancerProvider provider =
        LoadBalancerRegistry.getDefaultRegistry().getProvider(policy);
    Map<String, Object> json = object(data, 0);
    ConfigOrError parsed = provider.parseLoadBalancingPolicyConfig(json);
    if (parsed.getError() != null) {
      String description = parsed.getError().getDescription();
      if (description == null || !description.startsWith(policy + " config: ")) {
        throw new AssertionError("error not naming " + policy + ": " + parsed.getError());
      }
      return;
    }
    FakeHelper helper = new FakeHelper();
    LoadBalancer lb = provider.newLoadBalancer(helper);
    List<EquivalentAddressGroup> groups = new ArrayList<>();
    int n = data.consumeInt(0, 4);
    for (int i = 0; i < n; i++) {
      Map<String, String> labels = new LinkedHashMap<>();
      if (data.consumeBoolean()) {
        labels.put(data.pickValue(WORDS), data.pickValue(WORDS));
      }
      // 16777217 beside any other weight makes a VNSWRR ring too large; MAX_VALUE, a sum too large
      int weight = data.pickValue(new int[] {1, 2, 3, 7, 16_777_217, Integer.MAX_VALUE});
      groups.add(EndpointAttributes.toAddressGroup(
          Endpoint.of("127.0.0.1", 1000 + i, weight, labels)));
    }
    Status[] status = new Status[1];
    helper.syncContext.execute(() -> status[0] = lb.acceptResolvedAddresses(
        LoadBalancer.ResolvedAddresses.newBuilder().setAddresses(groups)
            .setLoadBalancingPolicyConfig(parsed.getConfig()).build()));
    if (status[0] == null) {
      throw new AssertionError("no status");
    }
    for (FakeHelper.FakeSubchannel s : List.copyOf(helper.subchannels)) {
      helper.syncContext.execute(() -> s.set(ConnectivityState.READY));
    }
    if (helper.picker != null) {
      helper.picker.pickSubchannel(FakeHelper.pickArgs(FakeHelper.headers(
          "x-lb-zone", data.pickValue(new String[] {"a", "zone", "v1"})),
          io.grpc.CallOptions.DEFAULT));
    }
    helper.syncContext.execute(lb::shutdown);
  }

  private static Map<String, Object> object(FuzzedDataProvider data, int depth) {
    Map<String, Object> map = new LinkedHashMap<>();
    int n = data.consumeInt(0, 4);
    for (int i = 0; i < n; i++) {
      map.put(data.consumeBoolean() ? data.pickValue(WORDS) : data.consumeString(12),
          value(data, depth + 1));
    }
    return map;
  }

  private static Object value(FuzzedDataProvider data, int depth) {
    switch (data.consumeInt(0, depth > 3 ? 3 : 5)) {
      case 0:
        return data.consumeBoolean() ? data.pickValue(WORDS) : data.consumeString(24);
      case 1:
        return data.consumeBoolean() ? (double) data.consumeInt(-3, 5) : data.consumeDouble();
      case 2:
        return data.consumeBoolean();
      case 3:
        return null;
      case 4: {
        List<Object> list = new ArrayList<>();
        int n = data.consumeInt(0, 3);
        for (int i = 0; i < n; i++) {
          list.add(value(data, depth + 1));
        }
        return list;
      }
      default:
        return object(data, depth);
    }
  }
}
