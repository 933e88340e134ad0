package dev.ballast.bench.pick;

import com.linecorp.armeria.client.ClientRequestContext;
import com.linecorp.armeria.client.endpoint.DynamicEndpointGroup;
import com.linecorp.armeria.client.endpoint.EndpointSelectionStrategy;
import com.linecorp.armeria.common.HttpMethod;
import com.linecorp.armeria.common.HttpRequest;
import dev.ballast.core.Endpoint;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Armeria's endpoint selection over lb-core's endpoints (same hosts and weights): a
 * {@link DynamicEndpointGroup} with {@code weightedRoundRobin()} or a {@code rampingUp()}
 * strategy, asked with {@code selectNow(ctx)} as an Armeria client does per request.
 */
final class ArmeriaPeer implements AutoCloseable {

  private final Group group;
  private final ClientRequestContext ctx;

  /**
   * Builds the group; with {@code rampingUp}, the last tenth of the endpoints is added after the
   * others and ramps up over 10 steps of 60 s (the whole run), else all are set at once.
   */
  ArmeriaPeer(boolean rampingUp, List<Endpoint> endpoints) {
    EndpointSelectionStrategy strategy = rampingUp
        ? EndpointSelectionStrategy.builderForRampingUp()
            .rampingUpInterval(Duration.ofSeconds(60)).totalSteps(10).build()
        : EndpointSelectionStrategy.weightedRoundRobin();
    group = new Group(strategy);
    ctx = ClientRequestContext.of(HttpRequest.of(HttpMethod.GET, "/"));
    List<com.linecorp.armeria.client.Endpoint> all = new ArrayList<>(endpoints.size());
    for (Endpoint e : endpoints) {
      all.add(com.linecorp.armeria.client.Endpoint.of(e.host(), e.port()).withWeight(e.weight()));
    }
    if (rampingUp) {
      group.set(all.subList(0, all.size() - Math.max(1, all.size() / 10)));
      select(); // the selector exists before the late endpoints join
    }
    group.set(all);
    if (select() == null) {
      throw new IllegalStateException("Armeria selected no endpoint");
    }
  }

  Object select() {
    return group.selectNow(ctx);
  }

  @Override
  public void close() {
    group.close();
  }

  /** A dynamic group whose endpoints the benchmark sets. */
  private static final class Group extends DynamicEndpointGroup {
    Group(EndpointSelectionStrategy strategy) {
      super(strategy);
    }

    void set(List<com.linecorp.armeria.client.Endpoint> endpoints) {
      setEndpoints(endpoints);
    }
  }
}
