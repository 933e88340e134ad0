package dev.ballast.soak;

import dev.ballast.core.Algorithm;
import dev.ballast.core.Endpoint;
import dev.ballast.netty.BallastClient;
import dev.ballast.netty.EndpointStats;
import dev.ballast.netty.framed.FramedServer;
import dev.ballast.netty.pool.PoolConfig;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.nio.NioEventLoopGroup;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The framed side: backends on 127.0.0.1 whose behaviour the chaos loop switches (answer, answer
 * slowly, never answer, down, garbage), and one lb-netty client keeping calls in flight to them.
 */
final class FramedSide implements AutoCloseable {

  /** What a backend does with a request. */
  enum Mode { NORMAL, SLOW, STALL, DOWN, CORRUPT, RESET }

  /** One backend address: a framed server, a garbage server or nothing, at a stable port. */
  final class Backend {
    final int index;
    private volatile Mode mode = Mode.NORMAL;
    private volatile int weight = 1;
    private FramedServer server;
    private GarbageServer garbage;
    private int port;

    Backend(int index) {
      this.index = index;
      this.server = FramedServer.builder().eventLoopGroup(SERVERS).handler(this::handle).start();
      this.port = server.port();
    }

    private CompletableFuture<byte[]> handle(FramedServer.Request req) {
      switch (mode) {
        case SLOW:
          return req.replyAfter(slowDelay, req.payload());
        case STALL:
          return new CompletableFuture<>();
        default:
          return req.replyAfter(normalDelay, req.payload());
      }
    }

    Endpoint endpoint() {
      return Endpoint.of("127.0.0.1", port).withWeight(weight);
    }

    Mode mode() {
      return mode;
    }

    /** Switches between NORMAL, SLOW and STALL (the server keeps running). */
    synchronized void behave(Mode m) {
      if (server != null) {
        mode = m;
      }
    }

    /**
     * Closes whatever listens at the port: DOWN, or CORRUPT with a garbage server there, or
     * RESET with a server that resets every connection on accept.
     */
    synchronized void takeDown(Mode how, long seed) {
      closeListeners();
      mode = Mode.DOWN;
      if (how != Mode.DOWN) {
        garbage = how == Mode.RESET ? GarbageServer.resetting(port)
            : GarbageServer.start(port, seed);
        if (garbage != null) {
          mode = how;
        }
      }
    }

    /**
     * Starts the real server again, at the same port when it is free; returns false when it had
     * to move (the client then needs the new address).
     */
    synchronized boolean restart() {
      closeListeners();
      mode = Mode.NORMAL;
      try {
        server = FramedServer.builder().eventLoopGroup(SERVERS).handler(this::handle).port(port).start();
        return true;
      } catch (IllegalStateException portTaken) {
        server = FramedServer.builder().eventLoopGroup(SERVERS).handler(this::handle).start();
        port = server.port();
        return false;
      }
    }

    void weight(int w) {
      weight = w;
    }

    private void closeListeners() {
      if (server != null) {
        server.close();
        server = null;
      }
      if (garbage != null) {
        garbage.close();
        garbage = null;
      }
    }

    synchronized void close() {
      closeListeners();
    }
  }

  /** The servers' own loop, apart from the client's, as if they ran elsewhere. */
  private static final EventLoopGroup SERVERS = new NioEventLoopGroup(1, r -> {
    Thread t = new Thread(r, "soak-framed-servers");
    t.setDaemon(true);
    return t;
  });

  final List<Backend> backends = new ArrayList<>();
  final Load load;
  final BallastClient<byte[], byte[]> client;
  private final Duration normalDelay;
  private final Duration slowDelay;
  private volatile List<Backend> members;

  /**
   * Starts {@code count} backends, the client over the first {@code count - 1} (the last one is
   * the spare that updates add and remove).
   */
  FramedSide(int count, int target, Duration timeout, Duration normalDelay, Duration slowDelay) {
    this.normalDelay = normalDelay;
    this.slowDelay = slowDelay;
    for (int i = 0; i < count; i++) {
      backends.add(new Backend(i));
    }
    members = List.copyOf(backends.subList(0, count - 1));
    this.load = new Load(new Tally("framed", timeout.toNanos()), target);
    this.client = BallastClient.framed()
        .name("soak")
        .endpoints(endpoints(members))
        .balancer(Algorithm.P2C_PEAK_EWMA)
        .timeout(timeout)
        .lateAnswerWait(Duration.ofSeconds(2))
        .pool(PoolConfig.builder().maxInFlightPerConnection(512).build())
        .seed(1)
        .build();
  }

  private static List<Endpoint> endpoints(List<Backend> bs) {
    List<Endpoint> r = new ArrayList<>();
    for (Backend b : bs) {
      r.add(b.endpoint());
    }
    return r;
  }

  /** The backends the client is given now. */
  List<Backend> members() {
    return members;
  }

  /** Gives the client {@code bs}; returns false if it refused them (it must not, here). */
  synchronized void update(List<Backend> bs) {
    client.updateEndpoints(endpoints(bs));
    members = List.copyOf(bs);
  }

  /** Gives the client its current members again, with their current addresses and weights. */
  synchronized void refresh() {
    update(members);
  }

  /**
   * Tries an invalid update (an address twice); returns true if the client refused it and
   * kept its set, as it must.
   */
  synchronized boolean tryInvalid(Random random) {
    List<Endpoint> bad = endpoints(members);
    bad.add(bad.get(random.nextInt(bad.size())));
    List<Endpoint> before = client.endpoints();
    try {
      client.updateEndpoints(bad);
      return false;
    } catch (IllegalArgumentException expected) {
      return client.endpoints().equals(before);
    }
  }

  /** Keeps the load's calls in flight, at most {@code perSecond} started a second. */
  void drive(int perSecond, long untilNanos) throws InterruptedException {
    byte[] payload = new byte[64];
    load.drive(perSecond, untilNanos, start -> client.call(payload)
        .whenComplete((rep, err) -> load.ended(start, Outcomes.of(err))));
  }



  /**
   * Waits, at most {@code timeoutMillis}, until the pools hold nothing (late answers are awaited
   * for 2 s past a deadline); returns {@link #leftovers()} then.
   */
  long[] awaitEmptyPools(long timeoutMillis) throws InterruptedException {
    long until = System.nanoTime() + timeoutMillis * 1_000_000L;
    long[] left = leftovers();
    while (java.util.Arrays.stream(left).sum() != 0 && System.nanoTime() < until) {
      Thread.sleep(100);
      left = leftovers();
    }
    return left;
  }

  /**
   * After the chaos: sends {@code calls} calls at once and returns the members that answered
   * none of them, with their stats after and before. A pool jammed by the chaos (one that no
   * longer opens connections) answers nothing; the retries hide that from the callers, not from
   * this. An endpoint that outlier detection ejects when the calls are sent or after they
   * answered (for up to 5 min after repeated ejections) is not picked, so it is not counted:
   * the calls are all picked at once, and one reinstated while they run gets none of them.
   */
  List<String> silentMembers(int calls) throws Exception {
    java.util.Map<String, EndpointStats> before = new java.util.HashMap<>();
    for (EndpointStats s : client.stats()) {
      before.put(s.address(), s);
    }
    List<CompletableFuture<byte[]>> all = new ArrayList<>();
    for (int i = 0; i < calls; i++) {
      all.add(client.call(new byte[64]).exceptionally(e -> null));
    }
    CompletableFuture.allOf(all.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
    List<String> silent = new ArrayList<>();
    for (EndpointStats s : client.stats()) {
      EndpointStats then = before.get(s.address());
      // not a member before (an address that moved) or ejected when the calls were picked
      if (then != null && !then.ejected() && !s.ejected()
          && s.successes() <= then.successes()) {
        silent.add(s + " (before the calls: " + then + ")");
      }
    }
    return silent;
  }

  /**
   * Pool permits taken, pending picks, pending acquires (summed over the client's endpoints) and
   * the client's calls in flight.
   */
  long[] leftovers() {
    long pending = 0;
    long permits = 0;
    long acquires = 0;
    for (EndpointStats s : client.stats()) {
      pending += s.pending();
      permits += s.inFlight();
      acquires += s.pendingAcquires();
    }
    return new long[] {permits, pending, acquires, client.inFlightCalls()};
  }

  @Override
  public void close() {
    client.close();
    for (Backend b : backends) {
      b.close();
    }
  }
}
