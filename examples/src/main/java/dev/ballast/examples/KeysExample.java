package dev.ballast.examples;

import dev.ballast.core.Algorithm;
import dev.ballast.core.BalancerConfig;
import dev.ballast.core.Endpoint;
import dev.ballast.core.HashBalancer;
import dev.ballast.core.HashConfig;
import dev.ballast.core.KeyHash;
import dev.ballast.core.Node;
import dev.ballast.core.hash.Ketama;
import dev.ballast.netty.BallastClient;
import dev.ballast.netty.CallOptions;

/** Balancing by key: the same key reaches the same server, in lb-core and in an lb-netty client. */
public final class KeysExample {

  /** lb-core: twemproxy's ketama over servers named by a label; values are addresses here. */
  static String serverOf(String key) {
    HashBalancer<String> shards = new Ketama<>(BalancerConfig.defaults(),
        HashConfig.builder().keyHash(KeyHash.FNV1A_64).nameLabel("name").build());
    shards.update(Endpoint.parseList(
            "10.0.0.1:11211;name=cache-a,10.0.0.2:11211;weight=2;name=cache-b"),
        Endpoint::address);

    Node<String> node = shards.pick(key);  // the same key, the same server
    node.complete(1_000_000, true);        // latency (ns) and outcome, as for any pick
    return node.value();
  }

  /** lb-netty: a call's key picks its endpoint ("10.0.0.1:11211;name=cache-a,..."). */
  static byte[] get(String endpoints, String key, byte[] request) throws Exception {
    try (BallastClient<byte[], byte[]> cache = BallastClient.framed()
        .endpoints(endpoints)
        .balancer(Algorithm.KETAMA, HashConfig.builder().nameLabel("name").build())
        .build()) {
      return cache.call(request, CallOptions.DEFAULT.withKey(key)).get(); // always the same server
    }
  }

  private KeysExample() {}
}
