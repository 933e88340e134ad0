package dev.ballast.grpc.internal;

import dev.ballast.core.config.Names;
import dev.ballast.core.policy.PolicyRegistry;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Says when a composite's {@code childPolicy} list skipped entries before the one it took (gRPC's
 * rule: the first entry known here wins), so that a misspelt first choice is not silent. Logged
 * at WARNING once per list and choice (a service config is parsed again on every resolution),
 * for at most {@value #MAX_SAID} of them.
 */
final class SkippedChildren {

  static final int MAX_SAID = 256;
  private static final System.Logger LOG = System.getLogger(SkippedChildren.class.getName());
  private static final Set<String> SAID = ConcurrentHashMap.newKeySet();

  private SkippedChildren() {}

  /** Logs that {@code skipped} were passed over for {@code taken}, if any were. */
  static void say(List<String> skipped, String taken, Collection<String> known) {
    if (skipped.isEmpty() || SAID.size() >= MAX_SAID || !SAID.add(skipped + " " + taken)) {
      return;
    }
    String near = nearestIfUnknown(skipped.get(0), known);
    LOG.log(System.Logger.Level.WARNING, () -> "childPolicy: " + skipped + " skipped (unknown,"
        + " or not supported here" + (near == null ? "" : "; did you mean " + near + "?")
        + "), taking " + taken + ", the first entry it knows, as gRPC does");
  }

  /**
   * Returns the known name nearest to {@code name} when {@code name} is a misspelling: null when
   * it is a policy registered with Ballast or one of {@code known} (a real policy that cannot be
   * a child here is not a typo of another one).
   */
  static String nearestIfUnknown(String name, Collection<String> known) {
    return known.contains(name) || PolicyRegistry.defaultRegistry().find(name).isPresent()
        ? null : Names.nearest(name, known);
  }
}
