package dev.ballast.grpc.internal;

import dev.ballast.core.Endpoint;
import dev.ballast.core.Ticker;
import dev.ballast.core.log.StateChangeLog;
import dev.ballast.core.source.EndpointFeed;
import dev.ballast.core.source.EndpointSink;
import dev.ballast.core.source.EndpointSource;
import dev.ballast.grpc.EndpointAttributes;
import dev.ballast.grpc.EndpointRegistry;
import io.grpc.EquivalentAddressGroup;
import io.grpc.NameResolver;
import io.grpc.Status;
import io.grpc.SynchronizationContext;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;

/**
 * Resolves a fixed endpoint list, follows a name in an {@link EndpointRegistry}, or follows an
 * {@link EndpointSource} through an {@link EndpointFeed}. Host names are resolved on the
 * offload executor; results reach the listener in the channel's synchronization context.
 */
public final class BallastNameResolver extends NameResolver {

  private final String target;
  private final String authority;
  private final List<Endpoint> fixed;
  private final String name;
  private final EndpointRegistry registry;
  private final EndpointSource source;
  private final SynchronizationContext syncContext;
  private final Executor executor;

  // Synchronization context only.
  private Listener2 listener;
  private EndpointRegistry.Subscription subscription;
  private EndpointFeed feed;
  private Runnable removeMeters;
  private List<Endpoint> latest;
  private boolean shutdown;

  private BallastNameResolver(String target, String authority, List<Endpoint> fixed,
      String name, EndpointRegistry registry, EndpointSource source, Args args) {
    this.target = target;
    this.authority = authority;
    this.fixed = fixed;
    this.name = name;
    this.registry = registry;
    this.source = source;
    this.syncContext = args.getSynchronizationContext();
    Executor offload = args.getOffloadExecutor();
    this.executor = offload != null ? offload : Runnable::run;
  }

  /** A resolver for a fixed list; the authority is the first endpoint's address. */
  public static BallastNameResolver fixed(List<Endpoint> endpoints, Args args) {
    return new BallastNameResolver(null, endpoints.get(0).address(), List.copyOf(endpoints),
        null, null, null, args);
  }

  /** A resolver following a name in the registry; the authority is the name. */
  public static BallastNameResolver following(String name, EndpointRegistry registry, Args args) {
    return new BallastNameResolver(null, name, null, name, registry, null, args);
  }

  /**
   * A resolver for {@code target} following a source (a registry, DNS) through a feed with its
   * defaults; {@link #refresh()} asks the source for an early re-read, as gRPC does when
   * connections fail. With Micrometer on the class path the feed's {@code ballast.source.*}
   * meters, tagged with the target, are in the global registry until {@link #shutdown()}.
   */
  public static BallastNameResolver following(String target, String authority,
      EndpointSource source, Args args) {
    return new BallastNameResolver(target, authority, null, null, null, source, args);
  }

  @Override
  public String getServiceAuthority() {
    return authority;
  }

  @Override
  public void start(Listener2 listener) {
    this.listener = listener;
    if (fixed != null) {
      resolve(fixed);
      return;
    }
    try {
      if (source != null) {
        // the source's state changes are logged as the channel's
        EndpointFeed.Builder logged = EndpointFeed.builder(source)
            .stateLog(StateChangeLog.of("channel " + authority, Ticker.system()));
        feed = logged.start(new EndpointSink() {
          @Override
          public void update(List<Endpoint> endpoints) {
            // A source that lists nothing (a registry restarting while its registrants'
            // sessions come back) keeps the channel on its last addresses, as lb-netty's
            // clients keep theirs.
            if (!endpoints.isEmpty()) {
              syncContext.execute(() -> resolve(endpoints));
            }
          }

          @Override
          public void sourceFailed(Throwable cause) {
            syncContext.execute(() -> sourceFailedBeforeAnyAddress(cause));
          }
        });
        if (PolicyMetrics.MicrometerPresence.PRESENT) {
          removeMeters = SourceMeters.register(feed, target);
        }
        return;
      }
      subscription = registry.subscribe(name,
          endpoints -> syncContext.execute(() -> resolve(endpoints)));
    } catch (RuntimeException e) {
      // thrown here, it would panic the channel for good; the providers check targets first
      listener.onError(Status.UNAVAILABLE.withDescription(
          authority + ": cannot follow the endpoints: " + e.getMessage()).withCause(e));
      return;
    }
    if (latest == null && registry.get(name).isEmpty()) {
      listener.onError(Status.UNAVAILABLE.withDescription(
          "ballast://" + name + ": no endpoints published under '" + name
              + "' in the EndpointRegistry yet"));
    }
  }

  @Override
  public void refresh() {
    if (feed != null) {
      feed.refresh();
    }
    if (latest != null) {
      resolve(latest);
    }
  }

  @Override
  public void shutdown() {
    shutdown = true;
    if (subscription != null) {
      subscription.close();
    }
    if (feed != null) {
      feed.close();
    }
    if (removeMeters != null) {
      removeMeters.run();
    }
  }

  // Before the first addresses, a source's failure is the channel's resolution error, as a DNS
  // failure is for gRPC's own resolver: calls that are not wait-for-ready fail UNAVAILABLE
  // instead of waiting for their deadline, and the channel asks for re-resolutions (refresh).
  // Once it has addresses, the channel keeps them through an outage: nothing is reported.
  private void sourceFailedBeforeAnyAddress(Throwable cause) {
    if (!shutdown && latest == null) {
      listener.onError(Status.UNAVAILABLE.withDescription(authority + ": source "
          + source.name() + " has given no endpoints yet: " + cause).withCause(cause));
    }
  }

  private void resolve(List<Endpoint> endpoints) {
    if (shutdown) {
      return;
    }
    latest = endpoints;
    executor.execute(() -> {
      List<EquivalentAddressGroup> groups = new ArrayList<>(endpoints.size());
      List<String> unresolved = new ArrayList<>();
      for (Endpoint e : endpoints) {
        EquivalentAddressGroup g = EndpointAttributes.toAddressGroup(e);
        if (((InetSocketAddress) g.getAddresses().get(0)).isUnresolved()) {
          unresolved.add(e.host());
        } else {
          groups.add(g);
        }
      }
      syncContext.execute(() -> deliver(endpoints, groups, unresolved));
    });
  }

  private void deliver(List<Endpoint> endpoints, List<EquivalentAddressGroup> groups,
      List<String> unresolved) {
    if (shutdown || endpoints != latest) {
      return; // a newer list is on its way
    }
    if (groups.isEmpty() && !unresolved.isEmpty()) {
      listener.onError(Status.UNAVAILABLE.withDescription(
          "ballast://" + authority + ": cannot resolve hosts " + unresolved));
      return;
    }
    listener.onResult2(ResolutionResult.newBuilder().setAddresses(groups).build());
  }
}
