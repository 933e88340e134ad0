package dev.ballast.core.source;

import dev.ballast.core.Endpoint;
import dev.ballast.core.aperture.Aperture;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Gives an {@link Aperture} balancer its coordinate from a source that lists its peers: the
 * clients of the same service, each registered under its own address (through a {@link
 * Registrar}, for example). Every change of that list makes this client's coordinate its rank
 * among the peers' addresses, sorted, and their count, so that the clients number themselves
 * alike and each has its own arc (Finagle takes the same from its peers' announcements). While
 * the client is not in the list (not registered yet, or briefly dropped by the registry) the
 * coordinate stays as it was.
 *
 * <pre>{@code
 * EndpointSource peers = ...; // the clients' own registrations
 * PeerCoordinate.follow(peers, aperture, "10.0.0.7:9000");
 * }</pre>
 */
public final class PeerCoordinate implements EndpointSource.Listener {

  private static final System.Logger LOG = System.getLogger(PeerCoordinate.class.getName());

  private final EndpointSource peers;
  private final Aperture<?> aperture;
  private final String self;
  private final Map<String, String> addresses = new HashMap<>();

  private PeerCoordinate(EndpointSource peers, Aperture<?> aperture, String self) {
    this.peers = Objects.requireNonNull(peers, "peers");
    this.aperture = Objects.requireNonNull(aperture, "aperture");
    this.self = Endpoint.parse(Objects.requireNonNull(self, "self")).address();
  }

  /**
   * Starts {@code peers} and keeps {@code aperture}'s coordinate following it; closing the
   * source stops it.
   *
   * @param self this client's address as its peers list it, {@code host:port}
   * @throws IllegalArgumentException if {@code self} is not an address
   */
  public static PeerCoordinate follow(EndpointSource peers, Aperture<?> aperture, String self) {
    PeerCoordinate c = new PeerCoordinate(peers, aperture, self);
    peers.start(c);
    return c;
  }

  @Override
  public synchronized void onEntries(Map<String, String> entries) {
    addresses.clear();
    entries.forEach(this::put);
    apply();
  }

  @Override
  public synchronized void onChanges(Map<String, String> upserts, Collection<String> removedKeys) {
    removedKeys.forEach(addresses::remove);
    upserts.forEach(this::put);
    apply();
  }

  @Override
  public void onFailure(Throwable cause) {
    // The last coordinate stays, as the last endpoints do.
  }

  private void put(String key, String value) {
    try {
      addresses.put(key, peers.parse(key, value).address());
    } catch (RuntimeException | Error e) { // a hostile entry costs that entry only
      addresses.remove(key);
      LOG.log(System.Logger.Level.WARNING, "peer " + key + " skipped: " + e.getMessage());
    }
  }

  private void apply() {
    List<String> sorted = new ArrayList<>(addresses.values().stream().distinct().toList());
    sorted.sort(null);
    int index = sorted.indexOf(self);
    if (index >= 0) {
      aperture.setCoordinate(index, sorted.size());
    }
  }
}
