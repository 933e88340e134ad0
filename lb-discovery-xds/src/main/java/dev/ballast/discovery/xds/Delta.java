package dev.ballast.discovery.xds;

import com.google.protobuf.Message;
import dev.ballast.discovery.xds.internal.EdsEntries;
import dev.ballast.discovery.xds.internal.PackedEds;
import io.envoyproxy.envoy.service.discovery.v3.AggregatedDiscoveryServiceGrpc;
import io.envoyproxy.envoy.service.discovery.v3.DeltaDiscoveryRequest;
import io.envoyproxy.envoy.service.discovery.v3.DeltaDiscoveryResponse;
import io.envoyproxy.envoy.service.discovery.v3.Resource;
import io.grpc.Channel;
import io.grpc.stub.StreamObserver;

/**
 * Incremental (Delta) xDS, as {@code DeltaDiscoveryRequest}'s definition in Envoy's {@code
 * discovery.proto} and Envoy's client ({@code DeltaSubscriptionState}) speak it: the client
 * subscribes to the resource by name; a response carries only the resources that changed, each
 * with its own version, and the names of those removed; every response is ACKed by its nonce
 * alone, or NACKed by its nonce with the reason. The client keeps the version of the resource it
 * accepted last and, on a new stream, sends it in {@code initial_resource_versions}, so that a
 * control plane that tracks versions need not send an unchanged resource again.
 *
 * <p>The resource is still a whole {@code ClusterLoadAssignment}: a change of one endpoint
 * resends the cluster's resource (the protocol's unit is a resource; LEDS, which splits a
 * cluster's endpoints into resources, is not supported). What Delta saves is resending
 * resources that did not change.
 */
final class Delta extends Dialect {

  private String resourceVersion = ""; // the accepted resource's version, empty if none
  private String systemVersion = ""; // the last accepted response's system_version_info

  Delta(XdsBootstrap bootstrap, String cluster) {
    super(bootstrap, cluster);
  }

  @Override
  StreamObserver<Message> open(Channel channel, StreamObserver<Message> responses) {
    return Dialect.<Message>untyped(AggregatedDiscoveryServiceGrpc.newStub(channel)
        .deltaAggregatedResources(Dialect.untyped(responses)));
  }

  // the node in every request, as the SotW dialect does and for the same reason
  private DeltaDiscoveryRequest.Builder request() {
    return DeltaDiscoveryRequest.newBuilder().setNode(bootstrap.node())
        .setTypeUrl(EdsEntries.TYPE_URL);
  }

  @Override
  Message subscribe() {
    DeltaDiscoveryRequest.Builder b = request().addResourceNamesSubscribe(cluster);
    if (!resourceVersion.isEmpty()) {
      b.putInitialResourceVersions(cluster, resourceVersion);
    }
    return b.build();
  }

  @Override
  Read read(Message response) {
    DeltaDiscoveryResponse r = (DeltaDiscoveryResponse) response;
    if (!r.getTypeUrl().equals(EdsEntries.TYPE_URL)) {
      return null;
    }
    PackedEds found = null;
    for (int i = 0; i < r.getResourcesCount(); i++) {
      Resource res = r.getResources(i);
      if (!res.getName().equals(cluster)) {
        continue; // not subscribed to: a control plane's extra, ignored
      }
      String where = "resource " + i + " (" + cluster + ")";
      if (found != null) {
        throw new IllegalArgumentException("EDS resource " + cluster + " sent twice");
      }
      if (!res.hasResource()) {
        throw new IllegalArgumentException(where + ": no resource body (expected: a "
            + "ClusterLoadAssignment)");
      }
      found = unpack(res.getResource(), where);
      if (!found.clusterName().equals(cluster)) {
        throw new IllegalArgumentException(where + ": cluster_name " + found.clusterName()
            + " (expected: " + cluster + ", the resource's name)");
      }
    }
    boolean removed = r.getRemovedResourcesList().contains(cluster);
    if (removed && found != null) {
      throw new IllegalArgumentException("EDS resource " + cluster + " both sent and removed");
    }
    return found == null && !removed ? Read.NOTHING : new Read(found, removed);
  }

  @Override
  Message accept(Message response) {
    DeltaDiscoveryResponse r = (DeltaDiscoveryResponse) response;
    systemVersion = r.getSystemVersionInfo();
    DeltaDiscoveryRequest.Builder ack = request().setResponseNonce(r.getNonce());
    if (r.getRemovedResourcesList().contains(cluster)) {
      resourceVersion = "";
      // still wanted: said again, since a control plane may drop a removed resource from the
      // stream's subscriptions (java-control-plane's delta server does, and then never sends
      // it when it is back); subscribing again to a name is allowed and harmless elsewhere
      ack.addResourceNamesSubscribe(cluster);
    }
    for (Resource res : r.getResourcesList()) {
      if (res.getName().equals(cluster)) {
        resourceVersion = res.getVersion();
      }
    }
    return ack.build();
  }

  @Override
  Message reject(Message response, String why) {
    return request().setResponseNonce(((DeltaDiscoveryResponse) response).getNonce())
        .setErrorDetail(invalid(why)).build();
  }

  @Override
  String acceptedVersion() {
    return systemVersion;
  }
}
