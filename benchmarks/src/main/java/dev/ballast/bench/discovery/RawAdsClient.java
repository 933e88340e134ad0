package dev.ballast.bench.discovery;

import dev.ballast.discovery.xds.internal.EdsEntries;
import io.envoyproxy.envoy.config.core.v3.Node;
import io.envoyproxy.envoy.service.discovery.v3.AggregatedDiscoveryServiceGrpc;
import io.envoyproxy.envoy.service.discovery.v3.DiscoveryRequest;
import io.envoyproxy.envoy.service.discovery.v3.DiscoveryResponse;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.stub.StreamObserver;
import java.util.concurrent.TimeUnit;

/**
 * The benchmark's control client: a State of the World ADS stream for one EDS resource that ACKs
 * each response as it arrives and reads nothing of it (gRPC's parse of the response, whose
 * resource stays packed bytes, is all it costs). Pushes to it load the host as pushes to a
 * Ballast client do (the control plane's snapshot, packing and send, the transport), without
 * Ballast's read and apply.
 */
final class RawAdsClient {
  final Applies.Counter responses = new Applies.Counter();
  private final ManagedChannel channel;
  private final StreamObserver<DiscoveryRequest> requests;
  private final DiscoveryRequest subscribe;

  /** Opens the stream to 127.0.0.1:port as node {@code node}, subscribing to {@code cluster}. */
  RawAdsClient(int port, String node, String cluster) {
    channel = ManagedChannelBuilder.forAddress("127.0.0.1", port).usePlaintext().build();
    subscribe = DiscoveryRequest.newBuilder().setNode(Node.newBuilder().setId(node))
        .setTypeUrl(EdsEntries.TYPE_URL).addResourceNames(cluster).build();
    requests = AggregatedDiscoveryServiceGrpc.newStub(channel).streamAggregatedResources(
        new StreamObserver<>() {
          @Override
          public void onNext(DiscoveryResponse r) {
            send(subscribe.toBuilder().setVersionInfo(r.getVersionInfo())
                .setResponseNonce(r.getNonce()).build());
            responses.increment();
          }

          @Override
          public void onError(Throwable t) {}

          @Override
          public void onCompleted() {}
        });
    send(subscribe);
  }

  private synchronized void send(DiscoveryRequest r) {
    requests.onNext(r);
  }

  /** Closes the channel, waiting up to 5 s. */
  void close() throws InterruptedException {
    channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
  }
}
