package dev.ballast.spring.actuate;

import dev.ballast.core.status.BalancerStatus;
import dev.ballast.spring.BallastClients;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.beans.factory.ObjectProvider;

/** The lb-netty clients' status; loaded only when lb-netty is on the class path. */
final class NettyClients {

  private NettyClients() {}

  /** Returns each client's status by name; none when the context has no {@link BallastClients}. */
  static Map<String, BalancerStatus> status(ObjectProvider<BallastClients> provider) {
    BallastClients clients = provider.getIfAvailable();
    Map<String, BalancerStatus> out = new LinkedHashMap<>();
    if (clients != null) {
      for (String name : clients.names()) {
        out.put(name, clients.get(name).status());
      }
    }
    return out;
  }
}
