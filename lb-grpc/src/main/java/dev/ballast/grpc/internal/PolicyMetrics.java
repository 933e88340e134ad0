package dev.ballast.grpc.internal;

import io.grpc.ConnectivityState;
import io.grpc.LoadBalancer.Helper;
import io.grpc.LoadBalancer.SubchannelPicker;
import java.util.concurrent.atomic.LongAdder;

/**
 * What one policy instance (one channel's load balancer) reports about its subchannels and
 * picks. Every method but the counting picker's runs in the channel's synchronization context.
 * {@link #NOOP} unless Micrometer is on the class path, then {@link MicrometerPolicyMetrics}.
 */
interface PolicyMetrics {

  /** Reports nothing. */
  PolicyMetrics NOOP = new PolicyMetrics() {};

  /** A subchannel joined (its state is CONNECTING). */
  default void added(Backend backend) {}

  /** The backend's node is (again) bound; {@code tracksRtt} if its balancer keeps an RTT. */
  default void bound(Backend backend, boolean tracksRtt) {}

  /** A subchannel's recorded state changes. */
  default void stateChanged(ConnectivityState from, ConnectivityState to) {}

  /** A subchannel left. */
  default void removed(Backend backend) {}

  /** Returns the picker to publish: the given one, or one that counts its queued or failed picks. */
  default SubchannelPicker counting(SubchannelPicker picker) {
    return picker;
  }

  /**
   * Returns the counter of picks that waited for a READY subchannel, for a picker that counts
   * its own (saving the counting picker's layer on every pick), or null when none is kept.
   */
  default LongAdder queuedPicks() {
    return null;
  }

  /** The policy shut down: its meters go. */
  default void close() {}

  /** Returns the sink for a new policy instance. */
  static PolicyMetrics create(Helper helper, String policy) {
    return MicrometerPresence.PRESENT ? MicrometerPolicyMetrics.create(helper, policy) : NOOP;
  }

  /** Whether Micrometer can be loaded; checked once. */
  final class MicrometerPresence {
    static final boolean PRESENT = present();

    private MicrometerPresence() {}

    private static boolean present() {
      try {
        Class.forName("io.micrometer.core.instrument.Metrics", false,
            PolicyMetrics.class.getClassLoader());
        return true;
      } catch (ClassNotFoundException | LinkageError e) {
        return false;
      }
    }
  }
}
