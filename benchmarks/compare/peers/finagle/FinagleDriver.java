package dev.ballast.compare.peer;

import com.twitter.finagle.Http;
import com.twitter.finagle.Service;
import com.twitter.finagle.http.Method;
import com.twitter.finagle.http.Request;
import com.twitter.finagle.http.Response;
import com.twitter.finagle.loadbalancer.Balancers;
import com.twitter.finagle.loadbalancer.LoadBalancerFactory;
import com.twitter.util.Duration;
import com.twitter.util.FutureEventListener;
import dev.ballast.compare.driver.Driver;
import java.util.concurrent.CompletableFuture;

/**
 * {@code ./ballast compare}'s driver for Finagle's HTTP client (HTTP/1.1): {@code p2cPeakEwma}
 * or {@code p2c} (least loaded) at their defaults (decay time 10 s), a request timeout of the
 * run's deadline, every other module of Finagle's client stack at its default (failure accrual,
 * requeues of connection failures).
 */
public final class FinagleDriver {

  private FinagleDriver() {}

  /** Runs the driver (arguments: see {@link Driver}). */
  public static void main(String[] args) throws Exception {
    Driver.run(args, s -> {
      LoadBalancerFactory lb = s.policy().equals("p2c")
          ? Balancers.p2c(Balancers.p2c$default$1())
          : Balancers.p2cPeakEwma(Balancers.p2cPeakEwma$default$1(), Balancers.p2cPeakEwma$default$2());
      Service<Request, Response> service = Http.client()
          .withLoadBalancer().apply(lb)
          .withRequestTimeout(Duration.fromMilliseconds(s.timeoutMillis()))
          .newService(String.join(",", s.targets()), "compare");
      return () -> {
        CompletableFuture<Response> done = new CompletableFuture<>();
        service.apply(Request.apply(Method.Get(), "/")).addEventListener(new FutureEventListener<Response>() {
          @Override
          public void onSuccess(Response r) {
            if (r.statusCode() == 200) {
              done.complete(r);
            } else {
              done.completeExceptionally(new IllegalStateException("status " + r.statusCode()));
            }
          }

          @Override
          public void onFailure(Throwable t) {
            done.completeExceptionally(t);
          }
        });
        return done;
      };
    });
  }
}
