package dev.ballast.grpc.internal;

import dev.ballast.core.Balancer;
import dev.ballast.core.Node;
import dev.ballast.core.status.BalancerStatus;
import dev.ballast.core.status.EndpointStatus;
import io.grpc.LoadBalancer.Helper;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

/** A gRPC policy's status: made from its nodes, read in its channel's synchronization context. */
final class PolicyStatus {

  private PolicyStatus() {}

  /**
   * Runs {@code read} in the helper's synchronization context (at once on the calling thread when
   * no other thread is draining it) and returns what it gives.
   *
   * @throws IllegalStateException if the context does not run it within 10 s
   */
  static <V> V read(Helper helper, Supplier<V> read) {
    CompletableFuture<V> f = new CompletableFuture<>();
    helper.getSynchronizationContext().execute(() -> {
      try {
        f.complete(read.get());
      } catch (RuntimeException e) {
        f.completeExceptionally(e);
      }
    });
    try {
      return f.get(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while reading the status", e);
    } catch (ExecutionException | TimeoutException e) {
      throw new IllegalStateException(helper.getAuthority() + ": status not read", e);
    }
  }

  /**
   * The status of the nodes in force, with the ramps and composite levels of {@code balancer} (a
   * {@link Balancer}, or null: ramps read 1, no levels).
   */
  @SuppressWarnings("unchecked")
  static BalancerStatus of(String authority, String policy, List<Node<Backend>> nodes,
      Object balancer) {
    List<EndpointStatus> out = new ArrayList<>();
    for (Node<Backend> n : nodes) {
      // a subchannel's state (its connection, or gRPC's health check) sets the checked health
      out.add(EndpointStatus.of(n, balancer instanceof Balancer<?> b
          ? ((Balancer<Backend>) b).ramp(n) : 1, null, "subchannel"));
    }
    return new BalancerStatus(authority, policy, Instant.now(), out,
        BalancerStatus.levels(balancer), null);
  }
}
