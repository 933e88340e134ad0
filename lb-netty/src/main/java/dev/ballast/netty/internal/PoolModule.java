package dev.ballast.netty.internal;

import dev.ballast.netty.Role;

/**
 * The pool's module, the last of the chain: the attempt asks its endpoint's {@link
 * ConnectionPool} for a connection and is written on it; its outcome (the answer, a failure, or
 * the pool's refusal) starts back up from here. Connections go back to the pool as each request's
 * wire part ends.
 */
final class PoolModule<Req, Rep> extends AttemptLayer<Req, Rep> {

  PoolModule() {
    super(Role.POOL);
  }

  @Override
  void enter(Attempt<Req, Rep> a) {
    a.send();
  }
}
