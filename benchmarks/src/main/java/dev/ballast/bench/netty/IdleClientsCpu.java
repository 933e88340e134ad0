package dev.ballast.bench.netty;

import dev.ballast.netty.BallastClient;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;

/**
 * What idle clients cost: builds N framed clients (one endpoint each on 127.0.0.1, never
 * called, so no connection is opened), waits 2 s, then prints the process's CPU time per
 * second over 10 s: the JVM's own background plus the clients' timers.
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar dev.ballast.bench.netty.IdleClientsCpu [clients]
 * </pre>
 */
public final class IdleClientsCpu {

  private IdleClientsCpu() {}

  /** Runs the measurement; argument: how many clients (default 50). */
  public static void main(String[] args) throws Exception {
    int n = args.length > 0 ? Integer.parseInt(args[0]) : 50;
    List<BallastClient<byte[], byte[]>> clients = new ArrayList<>();
    try {
      for (int i = 0; i < n; i++) {
        clients.add(BallastClient.framed().name("idle-" + i)
            .endpoints("127.0.0.1:" + (20000 + i)).build());
      }
      com.sun.management.OperatingSystemMXBean os = (com.sun.management.OperatingSystemMXBean)
          ManagementFactory.getOperatingSystemMXBean();
      Thread.sleep(2000);
      long cpu0 = os.getProcessCpuTime();
      long t0 = System.nanoTime();
      Thread.sleep(10_000);
      long cpu = os.getProcessCpuTime() - cpu0;
      double seconds = (System.nanoTime() - t0) / 1e9;
      System.out.printf("%d idle clients: %.1f ms of CPU per second%n", n, cpu / 1e6 / seconds);
    } finally {
      for (BallastClient<byte[], byte[]> c : clients) {
        c.close();
      }
    }
  }
}
