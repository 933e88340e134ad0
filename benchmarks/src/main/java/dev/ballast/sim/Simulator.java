package dev.ballast.sim;

import dev.ballast.core.Algorithm;
import dev.ballast.core.Balancer;
import dev.ballast.core.BalancerConfig;
import dev.ballast.core.Endpoint;
import dev.ballast.core.NoAvailableEndpointException;
import dev.ballast.core.Node;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.SplittableRandom;
import java.util.function.UnaryOperator;
import org.HdrHistogram.Histogram;

/**
 * Runs a {@link Scenario} against a real lb-core balancer in virtual time.
 *
 * <p>Events (arrivals, responses, timeouts) are taken in time order from a priority queue; the
 * balancer's {@link dev.ballast.core.Ticker} reads the virtual clock, so a run of 60 virtual
 * seconds takes well under a second and gives the same figures on every machine. Randomness
 * comes from one {@link SplittableRandom} seeded by {@link Scenario#seed()}, split into separate
 * streams for arrivals, each backend's latencies and the balancer, so one stream's draws never
 * shift another's: the same seed gives the same output.
 *
 * <p>The client model is that of a client with a deadline: a request is answered when the first
 * of its attempts answers before the deadline. At the deadline the request fails; an attempt
 * still running stays pending on its node until its answer comes, which then completes it for the
 * balancer as a failure with its real latency, as lb-netty does ({@linkplain
 * Scenario#lateAnswers() late answers}); with late answers dropped, it completes as a failure
 * with its elapsed time at the deadline ({@link Node#complete(long, boolean)}). With retries on, an
 * attempt that exceeds the per-try timeout completes as a failure and the request tries again
 * (picking again) while attempts and time remain. With backup requests on, a request not answered
 * after the backup delay sends one more attempt; when one attempt answers, the others are
 * abandoned with {@link Node#cancel()} (their latency is unknown, so it is not fed back).
 *
 * <p>When the scenario does not {@linkplain Scenario#enforceTimeout() enforce} its timeout, the
 * client waits for every answer: the balancer sees each attempt's real latency and a request
 * answered after the timeout counts as a failure, with its real latency in the histogram.
 *
 * <p>A backend in a failing window answers with an error: the attempt completes for the balancer
 * as a failure with its latency, and the request fails then. With a {@linkplain
 * Scenario#scaleOut() scale-out}, the balancer starts with the first backends and is updated with
 * all of them at the scale-out time; each joining backend's latency is multiplied by its
 * coldness. Only requests arriving from {@linkplain Scenario#measureFromNanos() the measuring
 * start} count in the result; the earlier ones are reported as its steady state.
 */
public final class Simulator {

  private static final int RESPONSE = 0;
  private static final int TRY_TIMEOUT = 1;
  private static final int DEADLINE = 2;
  private static final int BACKUP = 3;
  private static final int JOIN = 4;
  private static final int ARRIVAL = 5;

  private final Scenario scenario;
  private final UnaryOperator<BalancerConfig.Builder> configure;

  /** Creates a simulator of the scenario with the balancers' default settings. */
  public Simulator(Scenario scenario) {
    this(scenario, UnaryOperator.identity());
  }

  /**
   * Creates a simulator whose balancers take extra settings; the ticker and random source are
   * always the simulator's.
   */
  public Simulator(Scenario scenario, UnaryOperator<BalancerConfig.Builder> configure) {
    this.scenario = scenario;
    this.configure = configure;
  }

  /** Runs the scenario with each algorithm, in order, each from the same seed. */
  public List<Result> run(List<Algorithm> algorithms) {
    List<Result> results = new ArrayList<>();
    for (Algorithm a : algorithms) {
      results.add(run(a));
    }
    return results;
  }

  /** Runs the scenario once with the given algorithm. */
  public Result run(Algorithm algorithm) {
    return new Run(algorithm).run();
  }

  private static final class Event implements Comparable<Event> {
    final long time;
    final int type;
    final long seq;
    final Request request;
    final Attempt attempt;

    Event(long time, int type, long seq, Request request, Attempt attempt) {
      this.time = time;
      this.type = type;
      this.seq = seq;
      this.request = request;
      this.attempt = attempt;
    }

    @Override
    public int compareTo(Event o) {
      // At the same instant a response wins over a timeout: latency == timeout is a success.
      int c = Long.compare(time, o.time);
      if (c == 0) {
        c = Integer.compare(type, o.type);
      }
      return c != 0 ? c : Long.compare(seq, o.seq);
    }
  }

  private static final class Request {
    final long arrival;
    final boolean measured;
    final List<Attempt> attempts = new ArrayList<>(2);
    boolean done;
    boolean backupSent;

    Request(long arrival, boolean measured) {
      this.arrival = arrival;
      this.measured = measured;
    }
  }

  private static final class Attempt {
    final Request request;
    final Node<Integer> node;
    final long sent;
    final boolean fails;
    boolean done;

    Attempt(Request request, Node<Integer> node, long sent, boolean fails) {
      this.request = request;
      this.node = node;
      this.sent = sent;
      this.fails = fails;
    }
  }

  private final class Run {
    private final Algorithm algorithm;
    private final PriorityQueue<Event> queue = new PriorityQueue<>();
    private final SplittableRandom arrivals;
    private final SplittableRandom[] latencies;
    private final Balancer<Integer> balancer;
    private final Histogram histogram = Result.newHistogram();
    private final long[] picks;
    private final List<Endpoint> endpoints;
    private final Map<String, Integer> index = new HashMap<>();
    private long now;
    private long seq;
    private long requests;
    private long successes;
    private long attemptsSent;
    private long steadyRequests;
    private long steadySuccesses;

    Run(Algorithm algorithm) {
      this.algorithm = algorithm;
      SplittableRandom master = new SplittableRandom(scenario.seed());
      this.arrivals = master.split();
      int n = scenario.backends().size();
      this.latencies = new SplittableRandom[n];
      for (int i = 0; i < n; i++) {
        latencies[i] = master.split();
      }
      BalancerConfig.Builder config = configure.apply(BalancerConfig.builder())
          .ticker(() -> now)
          .random(master.split());
      if (scenario.slowStartNanos() > 0) {
        config.slowStart(Duration.ofNanos(scenario.slowStartNanos()),
            scenario.slowStartAggression(), scenario.slowStartFloorPercent());
      }
      this.balancer = algorithm.create(config.build());
      this.endpoints = new ArrayList<>(n);
      for (int i = 0; i < n; i++) {
        endpoints.add(Endpoint.of("10.0." + (i >> 8) + "." + (i & 0xff), 8080));
        index.put(endpoints.get(i).address(), i);
      }
      // The node's value is the backend's index.
      ScaleOut scaleOut = scenario.scaleOut();
      balancer.update(scaleOut == null ? endpoints : endpoints.subList(0, scaleOut.initial()),
          e -> index.get(e.address()));
      this.picks = new long[n];
    }

    Result run() {
      schedule(0, ARRIVAL, null, null);
      if (scenario.scaleOut() != null) {
        schedule(scenario.scaleOut().atNanos(), JOIN, null, null);
      }
      while (!queue.isEmpty()) {
        Event e = queue.poll();
        now = e.time;
        switch (e.type) {
          case ARRIVAL -> arrival();
          case RESPONSE -> response(e.attempt);
          case TRY_TIMEOUT -> tryTimeout(e.attempt);
          case DEADLINE -> deadline(e.request);
          case JOIN -> balancer.update(endpoints, e2 -> index.get(e2.address()));
          default -> backup(e.request);
        }
      }
      for (Node<Integer> node : balancer.nodes()) {
        if (node.pending() != 0) {
          // Every pick must end exactly once; a leftover means the simulator lost a request.
          throw new IllegalStateException("node " + node.address() + " still has " + node.pending()
              + " pending requests after the run (expected: 0)");
        }
      }
      return new Result(algorithm.id(), requests, successes, attemptsSent, picks, histogram,
          steadyRequests, steadySuccesses);
    }

    private void schedule(long time, int type, Request r, Attempt a) {
      queue.add(new Event(time, type, seq++, r, a));
    }

    private void arrival() {
      Request r = new Request(now, now >= scenario.measureFromNanos());
      if (r.measured) {
        requests++;
      } else {
        steadyRequests++;
      }
      long gap = scenario.poisson()
          ? Math.round(-Math.log(1 - arrivals.nextDouble()) * 1e9 / scenario.ratePerSecond())
          : Math.round(arrived() * 1e9 / scenario.ratePerSecond())
              - Math.round((arrived() - 1) * 1e9 / scenario.ratePerSecond());
      if (now + gap < scenario.durationNanos()) {
        schedule(now + gap, ARRIVAL, null, null);
      }
      if (scenario.enforceTimeout()) {
        schedule(now + scenario.timeoutNanos(), DEADLINE, r, null);
      }
      if (scenario.backupAfterNanos() > 0) {
        schedule(now + scenario.backupAfterNanos(), BACKUP, r, null);
      }
      send(r);
    }

    private long arrived() {
      return requests + steadyRequests;
    }

    private void send(Request r) {
      Node<Integer> node;
      try {
        node = balancer.pick();
      } catch (NoAvailableEndpointException e) {
        // The request fails at its deadline, which a measuring client must then schedule itself
        // when no attempt of the request is still running.
        if (!scenario.enforceTimeout() && r.attempts.stream().allMatch(a -> a.done)) {
          schedule(r.arrival + scenario.timeoutNanos(), DEADLINE, r, null);
        }
        return;
      }
      int backend = node.value();
      if (r.measured) {
        picks[backend]++;
        attemptsSent++;
      }
      LatencyDistribution latency = scenario.backends().get(backend);
      boolean fails = false;
      for (SlowWindow w : scenario.slowWindows()) {
        if (w.backend() == backend && w.covers(now)) {
          latency = w.latency();
          fails = w.fails();
        }
      }
      Attempt a = new Attempt(r, node, now, fails);
      r.attempts.add(a);
      long nanos = latency.sampleNanos(latencies[backend]);
      ScaleOut scaleOut = scenario.scaleOut();
      if (scaleOut != null && backend >= scaleOut.initial()) {
        nanos = Math.round(nanos * scaleOut.coldness(now - scaleOut.atNanos()));
      }
      schedule(now + nanos, RESPONSE, r, a);
      if (scenario.retries() > 0 && r.attempts.size() <= scenario.retries()
          && now + scenario.tryTimeoutNanos() < r.arrival + scenario.timeoutNanos()) {
        schedule(now + scenario.tryTimeoutNanos(), TRY_TIMEOUT, r, a);
      }
    }

    private void response(Attempt a) {
      if (a.done) {
        return; // timed out or abandoned: a late answer nobody waits for
      }
      a.done = true;
      Request r = a.request;
      // An answer after its request has ended (a late answer) reaches the balancer as a failure.
      a.node.complete(now - a.sent, !r.done && !a.fails);
      if (r.done) {
        return;
      }
      r.done = true;
      if (!a.fails && now - r.arrival <= scenario.timeoutNanos()) {
        if (r.measured) {
          successes++;
        } else {
          steadySuccesses++;
        }
      }
      record(r, now - r.arrival);
      for (Attempt other : r.attempts) {
        if (!other.done) {
          other.done = true;
          other.node.cancel();
        }
      }
    }

    private void tryTimeout(Attempt a) {
      if (a.done) {
        return;
      }
      a.done = true;
      a.node.complete(now - a.sent, false);
      if (!a.request.done) {
        send(a.request);
      }
    }

    private void deadline(Request r) {
      if (r.done) {
        return;
      }
      r.done = true;
      record(r, now - r.arrival);
      if (scenario.lateAnswers()) {
        return; // running attempts stay pending until their answers
      }
      for (Attempt a : r.attempts) {
        if (!a.done) {
          a.done = true;
          a.node.complete(now - a.sent, false);
        }
      }
    }

    private void backup(Request r) {
      if (!r.done && !r.backupSent) {
        r.backupSent = true;
        send(r);
      }
    }

    private void record(Request r, long nanos) {
      if (r.measured) {
        histogram.recordValue(Math.round(nanos / 1000.0));
      }
    }
  }
}
