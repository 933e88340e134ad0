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

  /**
   * The system property that turns on the per-endpoint pick counter ({@code ballast.grpc.picks}):
   * {@code true} or {@code false} (the default, also when unset or blank). Read when a policy
   * instance starts, so it applies to the channels whose policy starts after it is set. Off, a
   * pick adds nothing to a meter; on, one {@code LongAdder} increment. gRPC starts a channel's
   * policy again when the channel leaves idle, which reads it again. Another value leaves the
   * count off, with a warning.
   */
  String ENDPOINT_PICKS_PROPERTY = "ballast.grpc.metrics.endpointPicks";

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

  /**
   * Returns the counter of picks that failed their call, for a picker that counts its own (as
   * {@link #queuedPicks()}), or null when none is kept.
   */
  default LongAdder failedPicks() {
    return null;
  }

  /** The policy shut down: its meters go. */
  default void close() {}

  /**
   * Returns the sink for a new policy instance. A {@value #ENDPOINT_PICKS_PROPERTY} that is
   * neither true nor false leaves the count off and logs a warning naming it (once per value):
   * a mistyped switch of a meter must not fail calls.
   */
  static PolicyMetrics create(Helper helper, String policy) {
    if (!MicrometerPresence.PRESENT) {
      return NOOP;
    }
    String value = System.getProperty(ENDPOINT_PICKS_PROPERTY);
    boolean endpointPicks = false;
    try {
      endpointPicks = endpointPicks(value);
    } catch (IllegalArgumentException e) {
      BadSwitch.warn(value, e.getMessage());
    }
    return MicrometerPolicyMetrics.create(helper, policy, endpointPicks);
  }

  /** Warns of a bad switch value once per value. */
  final class BadSwitch {
    private static final System.Logger LOG = System.getLogger(PolicyMetrics.class.getName());
    private static volatile String warned;

    private BadSwitch() {}

    static void warn(String value, String message) {
      if (!value.equals(warned)) {
        warned = value;
        LOG.log(System.Logger.Level.WARNING, message + "; the per-endpoint pick count stays off");
      }
    }
  }

  /**
   * Returns whether picks are counted per endpoint, for a value of {@value
   * #ENDPOINT_PICKS_PROPERTY}: true or false in any case, around blanks; null or blank is false.
   *
   * @throws IllegalArgumentException for any other value, naming the property and the value
   */
  static boolean endpointPicks(String value) {
    String v = value == null ? "" : value.strip();
    if (v.isEmpty() || v.equalsIgnoreCase("false")) {
      return false;
    }
    if (v.equalsIgnoreCase("true")) {
      return true;
    }
    throw new IllegalArgumentException(ENDPOINT_PICKS_PROPERTY + ": '" + value
        + "' (expected: true or false)");
  }

  /** Whether Micrometer can be loaded; checked once. */
  final class MicrometerPresence {
    static final boolean PRESENT = ClassPresence.present("io.micrometer.core.instrument.Metrics");

    private MicrometerPresence() {}
  }
}
