package dev.ballast.soak;

import dev.ballast.soak.FramedSide.Mode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Random;
import java.util.TreeMap;

/**
 * The chaos loop: at each tick, maybe one seeded fault or endpoint update, each fault undone a
 * few seconds later. Faults: slow (answers near the deadline), stall (never answers), kill and
 * restart, corrupt (a garbage server at the address), reset (a server resetting every
 * connection as soon as it accepts it); updates: reweight, add, remove, and invalid sets that
 * must be refused.
 */
final class Chaos {

  private record Due(long atNanos, long order, Runnable action) {}

  private final Random random;
  private final FramedSide framed;
  private final GrpcSide grpc;
  private final PriorityQueue<Due> due = new PriorityQueue<>((a, b) -> a.atNanos != b.atNanos
      ? Long.compare(a.atNanos, b.atNanos) : Long.compare(a.order, b.order));
  private final Map<String, Integer> counts = new TreeMap<>();
  private List<GrpcSide.Backend> grpcMembers;
  private long order;

  Chaos(long seed, FramedSide framed, GrpcSide grpc) {
    this.random = new Random(seed);
    this.framed = framed;
    this.grpc = grpc;
    this.grpcMembers = List.copyOf(grpc.backends);
  }

  /** Runs what is due, then maybe starts one fault or update. */
  void tick() {
    long now = System.nanoTime();
    while (!due.isEmpty() && due.peek().atNanos <= now) {
      due.poll().action.run();
    }
    if (random.nextInt(10) < 6) {
      act(random.nextInt(12));
    }
  }

  /** Undoes every fault now and gives both clients their whole sets back. */
  void restoreAll() {
    while (!due.isEmpty()) {
      due.poll().action.run();
    }
    for (GrpcSide.Backend b : grpc.backends) {
      for (int i = 0; i < 50 && !b.restart(); i++) {
        sleep(100);
      }
    }
    grpcMembers = List.copyOf(grpc.backends);
    grpc.publish(grpcMembers);
    framed.update(framed.backends.subList(0, framed.backends.size() - 1));
  }

  /** What the loop did, by kind. */
  Map<String, Integer> counts() {
    return counts;
  }

  private void act(int kind) {
    switch (kind) {
      case 0, 1 -> framedBehave(kind == 0 ? Mode.SLOW : Mode.STALL);
      case 2, 3, 11 -> framedDown(
          kind == 2 ? Mode.DOWN : kind == 3 ? Mode.CORRUPT : Mode.RESET);
      case 4 -> framedReweight();
      case 5 -> framedMembership();
      case 6 -> count(framed.tryInvalid(random) ? "framed invalid update refused"
          : "framed invalid update ACCEPTED");
      case 7 -> grpcBehave(random.nextBoolean() ? Mode.SLOW : Mode.STALL);
      case 8 -> grpcKill();
      case 9 -> grpcMembership();
      default -> grpcInvalid();
    }
  }

  private void framedBehave(Mode m) {
    FramedSide.Backend b = normal(framed.backends, FramedSide.Backend::mode);
    if (b == null) {
      return;
    }
    b.behave(m);
    count("framed " + m.name().toLowerCase());
    later(1_000 + random.nextInt(3_000), () -> b.behave(Mode.NORMAL));
  }

  private void framedDown(Mode how) {
    FramedSide.Backend b = normal(framed.backends, FramedSide.Backend::mode);
    if (b == null) {
      return;
    }
    b.takeDown(how, random.nextLong());
    count(how == Mode.DOWN ? "framed kill" : how == Mode.CORRUPT ? "framed corrupt"
        : "framed connect resets");
    later(1_000 + random.nextInt(2_000), () -> {
      if (!b.restart()) {
        count("framed restart at a new port");
        framed.refresh();
      }
      count("framed restart");
    });
  }

  private void framedReweight() {
    List<FramedSide.Backend> members = framed.members();
    members.get(random.nextInt(members.size())).weight(1 + random.nextInt(5));
    framed.refresh();
    count("framed update: reweight");
  }

  private void framedMembership() {
    List<FramedSide.Backend> members = new ArrayList<>(framed.members());
    FramedSide.Backend b = framed.backends.get(random.nextInt(framed.backends.size()));
    if (members.remove(b)) {
      if (members.size() < 2) {
        return;
      }
      count("framed update: remove");
    } else {
      members.add(b);
      count("framed update: add");
    }
    framed.update(members);
  }

  private void grpcBehave(Mode m) {
    GrpcSide.Backend b = normal(grpc.backends, GrpcSide.Backend::mode);
    if (b == null) {
      return;
    }
    b.behave(m);
    count("grpc " + m.name().toLowerCase());
    later(1_000 + random.nextInt(3_000), () -> b.behave(Mode.NORMAL));
  }

  private void grpcKill() {
    GrpcSide.Backend b = normal(grpc.backends, GrpcSide.Backend::mode);
    if (b == null) {
      return;
    }
    b.kill();
    count("grpc kill");
    later(1_000 + random.nextInt(2_000), () -> restartGrpc(b));
  }

  private void restartGrpc(GrpcSide.Backend b) {
    if (b.restart()) {
      count("grpc restart");
    } else {
      later(500, () -> restartGrpc(b));
    }
  }

  private void grpcMembership() {
    List<GrpcSide.Backend> members = new ArrayList<>(grpc.backends);
    members.remove(random.nextInt(members.size()));
    grpcMembers = List.copyOf(members);
    grpc.publish(grpcMembers);
    count("grpc update: remove");
    later(1_000 + random.nextInt(3_000), () -> {
      grpcMembers = List.copyOf(grpc.backends);
      grpc.publish(grpcMembers);
      count("grpc update: add");
    });
  }

  private void grpcInvalid() {
    grpc.publishInvalid();
    count("grpc invalid update published");
    later(500, () -> grpc.publish(grpcMembers));
  }

  private <B> B normal(List<B> backends, java.util.function.Function<B, Mode> mode) {
    B b = backends.get(random.nextInt(backends.size()));
    return mode.apply(b) == Mode.NORMAL ? b : null;
  }

  private void later(long millis, Runnable action) {
    due.add(new Due(System.nanoTime() + millis * 1_000_000L, order++, action));
  }

  private void count(String what) {
    counts.merge(what, 1, Integer::sum);
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
