package dev.ballast.grpc.internal;

import io.grpc.LoadBalancer.PickResult;
import io.grpc.LoadBalancer.PickSubchannelArgs;
import io.grpc.LoadBalancer.SubchannelPicker;

/** A picker that always gives the same result (no result while connecting, or an error). */
final class FixedPicker extends SubchannelPicker {
  private final PickResult result;

  FixedPicker(PickResult result) {
    this.result = result;
  }

  @Override
  public PickResult pickSubchannel(PickSubchannelArgs args) {
    return result;
  }

  @Override
  public String toString() {
    return "FixedPicker{" + result + "}";
  }
}
