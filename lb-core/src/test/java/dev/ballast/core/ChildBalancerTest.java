package dev.ballast.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

class ChildBalancerTest {

  private static final BalancerConfig CONFIG = BalancerConfig.defaults();

  @SuppressWarnings("unchecked")
  private static Node<String>[] nodes(ChildBalancer<String> maker, int... weights) {
    Node<String>[] out = new Node[weights.length];
    for (int i = 0; i < weights.length; i++) {
      Endpoint e = Endpoint.of("10.0.0." + (i + 1), 80, weights[i], Map.of());
      out[i] = maker.newNode(e, e.address());
    }
    return out;
  }

  @Test
  void onlyAlgorithmsWithAWeightRuleAskForWeights() {
    for (Algorithm a : Algorithm.values()) {
      assertThat(ChildBalancer.create(a, CONFIG).limitsWeights()).as(a.id())
          .isEqualTo(a == Algorithm.VNSWRR || a == Algorithm.MAGLEV); // ring, table size
    }
    // a balancer of another make checks its own way: it is always asked
    assertThat(new Foreign().limitsWeights()).isTrue();
  }

  @Test
  void validatedNodesAreBalancedAsGivenAndTheRuleStillRuns() {
    ChildBalancer<String> vnswrr = ChildBalancer.create(Algorithm.VNSWRR, CONFIG);
    Node<String>[] nodes = nodes(vnswrr, 3, 1);
    vnswrr.setMembers(nodes, new int[] {3, 1});
    assertThat(vnswrr.nodes()).containsExactly(nodes);
    int first = 0;
    for (int i = 0; i < 40; i++) {
      Node<String> n = vnswrr.pick();
      first += n == nodes[0] ? 1 : 0;
      n.cancel();
    }
    assertThat(first).isEqualTo(30);
    assertThatThrownBy(() -> vnswrr.validateMembers(new Endpoint[2],
        new int[] {1 << 24, (1 << 24) + 1})).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("virtual nodes");
  }

  @Test
  void nodesOfAnotherAlgorithmAreRefused() {
    ChildBalancer<String> roundRobin = ChildBalancer.create(Algorithm.ROUND_ROBIN, CONFIG);
    Node<String>[] ewmaNodes = nodes(ChildBalancer.create(Algorithm.P2C_PEAK_EWMA, CONFIG), 1, 1);
    assertThatThrownBy(() -> roundRobin.setMembers(ewmaNodes, new int[] {1, 1})).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("another algorithm");
  }

  @Test
  void aForeignNodeAfterTheFirstIsRefusedToo() {
    // an algorithm's nodes carry its own state (SWRR's effective weight, peak EWMA's estimate):
    // a set whose first node is the algorithm's and whose second is not is refused with a typed
    // error naming the node, not a ClassCastException from the snapshot or a later pick
    for (Algorithm a : List.of(Algorithm.SWRR, Algorithm.P2C_PEAK_EWMA,
        Algorithm.P2C_UTILIZATION)) {
      ChildBalancer<String> own = ChildBalancer.create(a, CONFIG);
      Node<String>[] mixed = nodes(own, 1, 1);
      mixed[1] = nodes(ChildBalancer.create(Algorithm.ROUND_ROBIN, CONFIG), 1, 1)[1];
      assertThatThrownBy(() -> own.setMembers(mixed, new int[] {1, 1})).as(a.id())
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("node 10.0.0.2:80 was made for another algorithm");
    }
  }

  @Test
  void aBalancerOfAnotherMakeGetsThePublicCallsByDefault() {
    Foreign foreign = new Foreign();
    Node<String>[] nodes = nodes(ChildBalancer.create(Algorithm.ROUND_ROBIN, CONFIG), 1, 2);
    foreign.setMembers(nodes, new int[] {1, 2});
    assertThat(foreign.nodes()).containsExactly(nodes);
    Endpoint[] endpoints = {nodes[0].endpoint(), nodes[1].endpoint()};
    foreign.validateMembers(endpoints, new int[] {1, 2});
    assertThat(foreign.validated).containsExactly(endpoints);
  }

  @Test
  void aBalancerThatIsNoChildIsRefusedNamingIt() {
    Balancer<String> plain = new Balancer<>() {
      @Override
      public Node<String> pick() {
        throw new UnsupportedOperationException();
      }

      @Override
      public List<Node<String>> update(Collection<Endpoint> endpoints,
          Function<? super Endpoint, ? extends String> values) {
        throw new UnsupportedOperationException();
      }

      @Override
      public List<Node<String>> nodes() {
        return List.of();
      }

      @Override
      public String name() {
        return "plain";
      }
    };
    assertThatThrownBy(() -> ChildBalancer.of(plain))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("balancer: plain of ")
        .hasMessageContaining("expected: a ChildBalancer");
  }

  /** A balancer not made by lb-core: records what it is given. */
  private static final class Foreign implements ChildBalancer<String> {
    private final List<Node<String>> nodes = new ArrayList<>();
    private final List<Endpoint> validated = new ArrayList<>();

    @Override
    public Node<String> pick() {
      return nodes.get(0);
    }

    @Override
    public Node<String> pickUncounted() {
      return nodes.get(0);
    }

    @Override
    public List<Node<String>> update(Collection<Endpoint> endpoints,
        Function<? super Endpoint, ? extends String> values) {
      throw new UnsupportedOperationException();
    }

    @Override
    public void validate(Collection<Endpoint> endpoints) {
      validated.addAll(endpoints);
    }

    @Override
    public List<Node<String>> nodes() {
      return nodes;
    }

    @Override
    public String name() {
      return "foreign";
    }

    @Override
    public Node<String> newNode(Endpoint endpoint, String value) {
      throw new UnsupportedOperationException();
    }

    @Override
    public void setNodes(List<Node<String>> list) {
      nodes.addAll(list);
    }

    @Override
    public void renew(Node<String> node, Endpoint endpoint) {
      throw new UnsupportedOperationException();
    }
  }
}
