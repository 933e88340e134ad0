package dev.ballast.core.source;

import dev.ballast.core.Endpoint;

/**
 * One endpoint registered in a registry ({@link Registrar#register}); keeps the entry alive
 * (renewing the session or lease, re-creating the entry after the registry lost it) until
 * closed.
 */
public interface Registration extends AutoCloseable {

  /** Returns the endpoint as last registered or updated. */
  Endpoint endpoint();

  /**
   * Changes the registered weight and labels in place; clients see an update of the same
   * endpoint, not a removal and an addition. If the registry is unreachable, the change is
   * written when it is back.
   *
   * @throws IllegalArgumentException if the address differs from the registered one
   * @throws IllegalStateException if the registration is closed
   */
  void update(Endpoint endpoint);

  /** Removes the entry from the registry (best effort if it is unreachable); idempotent. */
  @Override
  void close();

  /**
   * Checks an {@link #update} as registrations do: the registration is open and the new
   * endpoint has the registered address.
   *
   * @throws IllegalStateException if {@code closed}
   * @throws IllegalArgumentException if the address differs
   */
  static void checkUpdate(Endpoint registered, Endpoint next, boolean closed) {
    java.util.Objects.requireNonNull(next, "endpoint");
    if (closed) {
      throw new IllegalStateException("registration of " + registered.address() + " closed");
    }
    if (!next.address().equals(registered.address())) {
      throw new IllegalArgumentException("address: " + next.address()
          + " (expected: the registered " + registered.address() + ")");
    }
  }
}
