package dev.ballast.core.arch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.core.Algorithm;
import dev.ballast.core.BalancerConfig;
import dev.ballast.core.ChildBalancer;
import dev.ballast.core.Endpoint;
import dev.ballast.core.Node;
import dev.ballast.core.engine.AbstractBalancer;
import dev.ballast.core.engine.EngineNode;
import dev.ballast.core.engine.LoadMetric;
import dev.ballast.core.engine.Snapshot;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A team's own balancer written on lb-core's engine from a package of its own, as lb-core's
 * algorithms are: its node class keeps per-node state (failures here), fed by the node's
 * protected hooks, and survives updates that keep the address.
 */
class OwnBalancerTest {

  /** Picks the node with the fewest failed calls (the first on a tie). */
  static final class FewestFailures<T> extends AbstractBalancer<T> {
    FewestFailures() {
      super("fewest_failures", BalancerConfig.defaults(), new Failures());
    }

    @Override
    protected Snapshot<T> snapshot(Node<T>[] nodes, int[] weights, int[] levels) {
      return new Snapshot<>("fewest_failures", nodes, config) {
        @Override
        public Node<T> next() {
          Node<T> best = nodes[0];
          for (Node<T> n : nodes) {
            if (((FailureNode<T>) n).failures.get() < ((FailureNode<T>) best).failures.get()) {
              best = n;
            }
          }
          return best;
        }
      };
    }
  }

  static final class Failures extends LoadMetric {
    @Override
    protected <T> EngineNode<T> newNode(Endpoint endpoint, T value, Runnable healthListener) {
      return new FailureNode<>(endpoint, value, this, healthListener);
    }
  }

  static final class FailureNode<T> extends EngineNode<T> {
    final AtomicInteger failures = new AtomicInteger();

    FailureNode(Endpoint endpoint, T value, Failures failures, Runnable healthListener) {
      super(endpoint, value, failures, healthListener);
    }

    @Override
    protected void onComplete(long latencyNanos, boolean success) {
      if (!success) {
        failures.incrementAndGet();
      }
    }
  }

  @Test
  void aBalancerOutsideLbCoreKeepsItsOwnPerNodeStateThroughUpdates() {
    FewestFailures<String> b = new FewestFailures<>();
    b.update(Endpoint.parseList("10.0.0.1:80,10.0.0.2:80,10.0.0.3:80"), Endpoint::address);
    Node<String> first = b.pick();
    assertThat(first.value()).isEqualTo("10.0.0.1:80");
    first.complete(1_000, false);
    Node<String> second = b.pick();
    assertThat(second.value()).isEqualTo("10.0.0.2:80");
    second.complete(1_000, false);
    assertThat(b.pick().value()).isEqualTo("10.0.0.3:80");

    // a weight change keeps the nodes and their state; a new node starts clean
    b.update(Endpoint.parseList("10.0.0.1:80;weight=5,10.0.0.2:80,10.0.0.3:80,10.0.0.4:80"),
        Endpoint::address);
    assertThat(b.nodes()).first().isSameAs(first);
    assertThat(((FailureNode<String>) first).failures).hasValue(1);
    assertThat(b.pick().value()).isEqualTo("10.0.0.3:80");
  }

  @SuppressWarnings("unchecked")
  private static Node<String>[] nodes(Node<String> node) {
    return new Node[] {node};
  }

  @Test
  void itRefusesAnotherAlgorithmsNodesAndOthersRefuseItsOwn() {
    FewestFailures<String> b = new FewestFailures<>();
    ChildBalancer<String> p2c = ChildBalancer.create(Algorithm.P2C_PEAK_EWMA,
        BalancerConfig.defaults());
    Node<String> foreign = p2c.newNode(Endpoint.parse("10.0.0.9:80"), "x");
    assertThatThrownBy(() -> b.setMembers(nodes(foreign), new int[] {1}))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("10.0.0.9:80");
    Node<String> own = b.newNode(Endpoint.parse("10.0.0.8:80"), "y");
    assertThatThrownBy(() -> p2c.setMembers(nodes(own), new int[] {1}))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("10.0.0.8:80");

    // its own nodes, made by another balancer of its kind, are taken (as a composite does)
    FewestFailures<String> sibling = new FewestFailures<>();
    sibling.setMembers(nodes(own), new int[] {1});
    sibling.renew(own, Endpoint.parse("10.0.0.8:80;weight=3"));
    assertThat(sibling.pick()).isSameAs(own);
    assertThat(own.weight()).isEqualTo(3);
  }
}
