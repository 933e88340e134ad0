package dev.ballast.compare;

import java.util.List;

/**
 * A client under test in {@code ./ballast compare}: its name in the tables, the peer whose class
 * path its driver runs on ({@code benchmarks/compare/peers/<peer>}; null for Ballast's own jar),
 * the driver's class, the balancing policy in that client's own words, and the protocol ({@code
 * h1}, {@code h2}, {@code grpc}: which servers it calls).
 */
record Contender(String name, String peer, String driver, String policy, String protocol) {

  private static final String LB_NETTY = BallastHttpDriver.class.getName();
  private static final String GRPC = GrpcDriver.class.getName();
  private static final String PEER = "dev.ballast.compare.peer.";

  /**
   * The clients of the slow-backend run (the demo's experiment), in pairs that compare: each
   * Ballast client next to its peer, so that both run at about the same load of the host.
   */
  static final List<Contender> SLOW = List.of(
      new Contender("Ballast lb-netty p2c_peak_ewma", null, LB_NETTY, "p2c_peak_ewma", "h1"),
      new Contender("Finagle p2cPeakEwma", "finagle", PEER + "FinagleDriver", "p2cPeakEwma", "h1"),
      new Contender("Ballast lb-netty least_loaded", null, LB_NETTY, "least_loaded", "h1"),
      new Contender("Finagle p2c (least loaded)", "finagle", PEER + "FinagleDriver", "p2c", "h1"),
      new Contender("Ballast lb-netty vnswrr", null, LB_NETTY, "vnswrr", "h1"),
      new Contender("Armeria weightedRoundRobin", "armeria", PEER + "ArmeriaDriver", "weightedRoundRobin", "h1"),
      new Contender("Armeria rampingUp", "armeria", PEER + "ArmeriaDriver", "rampingUp", "h1"),
      new Contender("Ballast gRPC p2c_peak_ewma", null, GRPC, "p2c_peak_ewma", "grpc"),
      new Contender("gRPC round_robin", null, GRPC, "round_robin", "grpc"),
      new Contender("Ballast gRPC least_loaded", null, GRPC, "least_loaded", "grpc"),
      new Contender("gRPC weighted_round_robin", null, GRPC, "weighted_round_robin", "grpc"),
      new Contender("Ballast gRPC vnswrr", null, GRPC, "vnswrr", "grpc"),
      new Contender("gRPC pick_first", null, GRPC, "pick_first", "grpc"),
      new Contender("Ballast Spring p2c_peak_ewma", "spring", PEER + "SpringDriver", "p2c-peak-ewma", "h1"),
      new Contender("Spring Cloud LB round robin", "spring", PEER + "SpringDriver", "round_robin", "h1"));

  /** The clients of the healthy-fleet run (cost per call at fixed concurrency), peers beside Ballast. */
  static final List<Contender> HEALTHY = List.of(
      new Contender("Ballast lb-netty HTTP/1.1", null, LB_NETTY, "p2c_peak_ewma", "h1"),
      new Contender("Armeria HTTP/1.1", "armeria", PEER + "ArmeriaDriver", "weightedRoundRobin", "h1"),
      new Contender("Reactor Netty HTTP/1.1", "reactor-netty", PEER + "ReactorNettyDriver", "round_robin", "h1"),
      new Contender("Ballast lb-netty HTTP/2", null, LB_NETTY, "p2c_peak_ewma", "h2"),
      new Contender("Armeria HTTP/2", "armeria", PEER + "ArmeriaDriver", "weightedRoundRobin", "h2"),
      new Contender("Reactor Netty HTTP/2", "reactor-netty", PEER + "ReactorNettyDriver", "round_robin", "h2"),
      new Contender("gRPC round_robin", null, GRPC, "round_robin", "grpc"),
      new Contender("Ballast gRPC p2c_peak_ewma", null, GRPC, "p2c_peak_ewma", "grpc"),
      new Contender("Ballast gRPC least_loaded", null, GRPC, "least_loaded", "grpc"),
      new Contender("Ballast gRPC vnswrr", null, GRPC, "vnswrr", "grpc"));

  /** Returns the contender's name with every run of non-alphanumerics as one dash, for file names. */
  String slug() {
    return (name + "-" + protocol).toLowerCase(java.util.Locale.ROOT).replaceAll("[^a-z0-9]+", "-");
  }
}
