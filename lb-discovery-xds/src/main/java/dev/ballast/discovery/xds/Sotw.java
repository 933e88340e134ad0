package dev.ballast.discovery.xds;

import com.google.protobuf.Message;
import dev.ballast.discovery.xds.internal.EdsEntries;
import dev.ballast.discovery.xds.internal.PackedEds;
import io.envoyproxy.envoy.service.discovery.v3.AggregatedDiscoveryServiceGrpc;
import io.envoyproxy.envoy.service.discovery.v3.DiscoveryRequest;
import io.envoyproxy.envoy.service.discovery.v3.DiscoveryResponse;
import io.grpc.Channel;
import io.grpc.stub.StreamObserver;

/**
 * State of the World: every response holds the whole resource; an ACK carries the response's
 * {@code version_info} and nonce, a NACK the nonce, the last accepted version and the reason. A
 * new stream asks with an empty version, so that the control plane sends its whole state.
 */
final class Sotw extends Dialect {

  private String version = ""; // the last accepted version_info

  Sotw(XdsBootstrap bootstrap, String cluster) {
    super(bootstrap, cluster);
  }

  @Override
  StreamObserver<Message> open(Channel channel, StreamObserver<Message> responses) {
    return Dialect.<Message>untyped(AggregatedDiscoveryServiceGrpc.newStub(channel)
        .streamAggregatedResources(Dialect.untyped(responses)));
  }

  // every request names the node, as Envoy does by default: the protocol asks it of the first
  // only, but control planes that key their state by node (java-control-plane's snapshot
  // cache) look for it in each
  private DiscoveryRequest.Builder request() {
    return DiscoveryRequest.newBuilder().setNode(bootstrap.node()).setTypeUrl(EdsEntries.TYPE_URL)
        .addResourceNames(cluster);
  }

  @Override
  Message subscribe() {
    return request().build();
  }

  @Override
  Read read(Message response) {
    DiscoveryResponse r = (DiscoveryResponse) response;
    if (!r.getTypeUrl().equals(EdsEntries.TYPE_URL)) {
      return null; // never asked for: nothing to answer
    }
    PackedEds found = null;
    for (int i = 0; i < r.getResourcesCount(); i++) {
      PackedEds cla = unpack(r.getResources(i), "resource " + i);
      if (cla.clusterName().equals(cluster)) {
        if (found != null) {
          throw new IllegalArgumentException("EDS resource " + cluster + " sent twice");
        }
        found = cla;
      }
    }
    // a response without the resource changes nothing: SotW EDS resources are not removed by
    // omission
    return found == null ? Read.NOTHING : new Read(found, false);
  }

  @Override
  Message accept(Message response) {
    DiscoveryResponse r = (DiscoveryResponse) response;
    version = r.getVersionInfo();
    return request().setVersionInfo(version).setResponseNonce(r.getNonce()).build();
  }

  @Override
  Message reject(Message response, String why) {
    return request().setVersionInfo(version)
        .setResponseNonce(((DiscoveryResponse) response).getNonce())
        .setErrorDetail(invalid(why)).build();
  }

  @Override
  String acceptedVersion() {
    return version;
  }
}
