package dev.ballast.spring.actuate;

import dev.ballast.core.status.BalancerStatus;
import dev.ballast.grpc.BallastGrpc;
import java.util.List;

/** The gRPC channels' status; loaded only when lb-grpc is on the class path. */
final class GrpcChannels {

  private GrpcChannels() {}

  static List<BalancerStatus> status() {
    return BallastGrpc.status();
  }
}
