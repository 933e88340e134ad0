package dev.ballast.netty.testing;

import dev.ballast.core.source.EndpointSource;

/**
 * An endpoint source the test pushes through by hand: {@link #listener()} is the feed's
 * listener once a client started it ({@code onEntries}, {@code onChanges}, {@code onFailure}).
 */
public final class ManualSource implements EndpointSource {

  private final String name;
  private volatile Listener listener;

  /** Creates a source of that name. */
  public ManualSource(String name) {
    this.name = name;
  }

  @Override
  public void start(Listener l) {
    listener = l;
  }

  /** Returns the feed's listener, or null before the client started the source. */
  public Listener listener() {
    return listener;
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public void close() {}
}
