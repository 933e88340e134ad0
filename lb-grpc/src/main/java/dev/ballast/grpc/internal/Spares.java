package dev.ballast.grpc.internal;

import dev.ballast.core.Node;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * Which subchannels a policy with a window keeps beside the window's own (synchronization
 * context only). The subchannels of backends that left the window stay as spares, up to a third
 * of the window's size (12 servers: 4 spares, 16 subchannels at most): they are not picked (but
 * by a degraded pick, when nothing in the window is open), and a server that comes back into the
 * window, as servers at its edges do when the addresses before it come and go, finds its
 * connection open. Beyond that the ones out the longest go, and so does a spare whose
 * connection closes (it is not needed enough to reopen).
 */
final class Spares {

  // counts the windows applied, to stamp the backends in each
  private long stamp;
  private boolean windowed;

  /** The policy has no window (every backend holds a subchannel): nothing is a spare. */
  void off() {
    windowed = false;
  }

  /**
   * Marks the backends of a new window and returns the spares beyond the bound, out the longest,
   * whose subchannels should be shut down.
   */
  List<Backend> apply(List<Node<Backend>> window, Collection<Backend> backends) {
    windowed = true;
    long now = ++stamp;
    for (Node<Backend> n : window) {
      n.value().inWindow = now;
    }
    List<Backend> spares = new ArrayList<>();
    for (Backend b : backends) {
      if (b.subchannel != null && b.inWindow != now) {
        spares.add(b);
      }
    }
    spares.sort((a, b) -> Long.compare(b.inWindow, a.inWindow));
    int keep = Math.min(spares.size(), window.size() / 3);
    return spares.subList(keep, spares.size());
  }

  /** Whether the backend is a spare: it has a subchannel but is outside the window. */
  boolean isSpare(Backend b) {
    return windowed && b.subchannel != null && b.inWindow != stamp;
  }
}
