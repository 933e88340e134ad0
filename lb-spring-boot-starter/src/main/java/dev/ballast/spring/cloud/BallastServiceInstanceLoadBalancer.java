package dev.ballast.spring.cloud;

import dev.ballast.core.Algorithm;
import dev.ballast.core.Balancer;
import dev.ballast.core.BalancerConfig;
import dev.ballast.core.Endpoint;
import dev.ballast.core.NoAvailableEndpointException;
import dev.ballast.core.policy.ConfiguredPolicy;
import dev.ballast.core.Node;
import dev.ballast.core.Ticker;
import java.net.URI;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.cloud.client.ServiceInstance;
import org.springframework.cloud.client.loadbalancer.CompletionContext;
import org.springframework.cloud.client.loadbalancer.DefaultResponse;
import org.springframework.cloud.client.loadbalancer.EmptyResponse;
import org.springframework.cloud.client.loadbalancer.LoadBalancerLifecycle;
import org.springframework.cloud.client.loadbalancer.Request;
import org.springframework.cloud.client.loadbalancer.Response;
import org.springframework.cloud.client.loadbalancer.ResponseData;
import org.springframework.cloud.loadbalancer.core.NoopServiceInstanceListSupplier;
import org.springframework.cloud.loadbalancer.core.ReactorServiceInstanceLoadBalancer;
import org.springframework.cloud.loadbalancer.core.SelectedInstanceCallback;
import org.springframework.cloud.loadbalancer.core.ServiceInstanceListSupplier;
import org.springframework.util.ClassUtils;
import reactor.core.publisher.Mono;

/**
 * A Spring Cloud LoadBalancer balancer for one service id over an lb-core {@link Balancer}: the
 * service's instances (from whatever discovery the application uses, through its {@link
 * ServiceInstanceListSupplier}) become endpoints, weighted by the instance metadata {@code weight}
 * (Spring Cloud's key; default 1) and labelled with the rest of its metadata (an entry that is no
 * valid label is left out), and each request's latency and outcome come back through the
 * {@link LoadBalancerLifecycle} this class also is, so that load-aware algorithms ({@code
 * p2c_peak_ewma}, {@code least_loaded}) see the instances' pending requests and latencies.
 *
 * <p>A pick counts as pending only for requests whose lifecycle started ({@code onStart}, which
 * Spring Cloud's RestTemplate, RestClient and WebClient integrations call before choosing); a
 * plain {@code LoadBalancerClient.choose(serviceId)} is balanced but not counted, since nothing
 * would end it. A response with a 5xx status counts as a failure. Made per service id by {@code
 * BallastSpringCloudAutoConfiguration} when {@code ballast.spring-cloud.balancer} is set.
 */
public final class BallastServiceInstanceLoadBalancer
    implements ReactorServiceInstanceLoadBalancer,
        LoadBalancerLifecycle<Object, Object, ServiceInstance> {

  private static final System.Logger LOG = System.getLogger(
      BallastServiceInstanceLoadBalancer.class.getName());
  // Spring Cloud's response data reads statuses with spring-web's types.
  private static final boolean HTTP = ClassUtils.isPresent(
      "org.springframework.http.HttpStatusCode", BallastServiceInstanceLoadBalancer.class
          .getClassLoader());

  private final String serviceId;
  private final ObjectProvider<ServiceInstanceListSupplier> suppliers;
  private final Balancer<ServiceInstance> balancer;
  private final Ticker ticker;
  // Requests whose lifecycle started and that have not been chosen for yet, by identity.
  private final Set<Started> started = ConcurrentHashMap.newKeySet();
  private final Object updating = new Object();
  private volatile List<ServiceInstance> applied;

  /**
   * Creates the balancer of one service.
   *
   * @param serviceId the service id, for messages
   * @param suppliers where the service's instances come from (Spring Cloud's per-service supplier)
   * @param policy the balancing policy with its options, e.g. {@code
   *     ConfiguredPolicy.of("p2c_peak_ewma", null)}; one that picks by key gets no key
   * @param config the settings every balancer reads; its ticker also times the requests
   */
  public BallastServiceInstanceLoadBalancer(String serviceId,
      ObjectProvider<ServiceInstanceListSupplier> suppliers, ConfiguredPolicy<?> policy,
      BalancerConfig config) {
    this.serviceId = Objects.requireNonNull(serviceId, "serviceId");
    this.suppliers = Objects.requireNonNull(suppliers, "suppliers");
    this.balancer = policy.newBalancer(config);
    this.ticker = config.ticker();
  }

  /**
   * Creates the balancer of one service.
   *
   * @param serviceId the service id, for messages
   * @param suppliers where the service's instances come from (Spring Cloud's per-service supplier)
   * @param algorithm the algorithm, e.g. {@link Algorithm#P2C_PEAK_EWMA}
   * @param config its settings; its ticker also times the requests
   * @deprecated name the policy: {@link #BallastServiceInstanceLoadBalancer(String,
   *     ObjectProvider, ConfiguredPolicy, BalancerConfig)}
   */
  @Deprecated(since = "0.1.0", forRemoval = true)
  public BallastServiceInstanceLoadBalancer(String serviceId,
      ObjectProvider<ServiceInstanceListSupplier> suppliers, Algorithm algorithm,
      BalancerConfig config) {
    this(serviceId, suppliers, ConfiguredPolicy.of(algorithm.id(), null), config);
  }

  /**
   * Picks an instance of the current list; an empty list or no open endpoint gives an empty
   * response (Spring Cloud then fails the request naming the service).
   */
  @Override
  public Mono<Response<ServiceInstance>> choose(Request request) {
    ServiceInstanceListSupplier supplier =
        suppliers.getIfAvailable(NoopServiceInstanceListSupplier::new);
    boolean counted = request != null && started.remove(new Started(request));
    return supplier.get(request).next().map(instances -> pick(supplier, instances, counted));
  }

  private Response<ServiceInstance> pick(
      ServiceInstanceListSupplier supplier, List<ServiceInstance> instances, boolean counted) {
    if (instances.isEmpty()) {
      return new EmptyResponse();
    }
    update(instances);
    Node<ServiceInstance> node;
    try {
      node = balancer.pick();
    } catch (NoAvailableEndpointException e) {
      return new EmptyResponse();
    }
    if (!counted) {
      node.cancel();
    }
    if (supplier instanceof SelectedInstanceCallback callback) {
      callback.selectedServiceInstance(node.value());
    }
    return new DefaultResponse(new PickedInstance(node, counted, ticker.nanoTime()));
  }

  /** Applies a new instance list to the balancer; equal lists (the usual case) cost a compare. */
  private void update(List<ServiceInstance> instances) {
    if (instances == applied) {
      return;
    }
    synchronized (updating) {
      if (instances.equals(applied)) {
        applied = instances;
        return;
      }
      List<Endpoint> endpoints = new ArrayList<>(instances.size());
      Map<String, ServiceInstance> byAddress = new HashMap<>();
      for (ServiceInstance i : instances) {
        Endpoint e;
        try {
          e = Endpoint.of(i.getHost(), i.getPort(), weight(i), labels(i));
        } catch (IllegalArgumentException bad) {
          LOG.log(System.Logger.Level.WARNING, () -> serviceId + ": instance " + describe(i)
              + " skipped: " + bad.getMessage());
          continue;
        }
        if (byAddress.putIfAbsent(e.address(), i) == null) {
          endpoints.add(e);
        }
      }
      balancer.update(endpoints, e -> byAddress.get(e.address()));
      applied = instances;
    }
  }

  private int weight(ServiceInstance i) {
    String text = i.getMetadata() == null ? null : i.getMetadata().get("weight");
    if (text == null) {
      return 1;
    }
    try {
      int w = Integer.parseInt(text.trim());
      if (w > 0) {
        return w;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    LOG.log(System.Logger.Level.WARNING, () -> serviceId + ": instance " + describe(i)
        + " metadata weight: " + text + " (expected: an integer > 0); weight 1 used");
    return 1;
  }

  /**
   * The instance's metadata but {@code weight}, as the endpoint's labels ({@code zone}, {@code
   * version}, ...): an entry that is no valid label (free text, too long) is left out, logged at
   * DEBUG, or at WARNING for a label Ballast reads ({@code zone}, {@code priority}, {@code
   * health}), which steers the calls.
   */
  private Map<String, String> labels(ServiceInstance i) {
    Map<String, String> labels = new HashMap<>();
    if (i.getMetadata() != null) {
      i.getMetadata().forEach((key, value) -> {
        if (key == null || value == null || key.equals("weight")) {
          return;
        }
        try {
          Endpoint.checkLabel(key, value);
          labels.put(key, value);
        } catch (IllegalArgumentException notALabel) {
          boolean read = key.equals(Endpoint.ZONE) || key.equals(Endpoint.PRIORITY)
              || key.equals(Endpoint.HEALTH);
          LOG.log(read ? System.Logger.Level.WARNING : System.Logger.Level.DEBUG, () -> serviceId
              + ": instance " + describe(i) + " metadata " + key + " left out: "
              + notALabel.getMessage());
        }
      });
    }
    return labels;
  }

  private static String describe(ServiceInstance i) {
    return (i.getInstanceId() == null ? "" : i.getInstanceId() + " ") + i.getHost() + ":"
        + i.getPort();
  }

  /** Marks a request whose lifecycle started: its pick will be counted until it completes. */
  @Override
  public void onStart(Request<Object> request) {
    if (request != null) {
      started.add(new Started(request));
    }
  }

  @Override
  public void onStartRequest(Request<Object> request, Response<ServiceInstance> lbResponse) {}

  /** Ends the request's pick: its latency, and a failure for an error or a 5xx status. */
  @Override
  public void onComplete(CompletionContext<Object, ServiceInstance, Object> completion) {
    Request<Object> request = completion.getLoadBalancerRequest();
    if (request != null) {
      started.remove(new Started(request));
    }
    Response<ServiceInstance> response = completion.getLoadBalancerResponse();
    if (response != null && response.getServer() instanceof PickedInstance picked) {
      picked.end(completion, ticker);
    }
  }

  private static boolean serverError(Object clientResponse) {
    return clientResponse instanceof ResponseData r && r.getHttpStatus() != null
        && r.getHttpStatus().is5xxServerError();
  }

  /** Returns the balancer, for tests. */
  Balancer<ServiceInstance> balancer() {
    return balancer;
  }

  @Override
  public String toString() {
    return "BallastServiceInstanceLoadBalancer{" + serviceId + ", " + balancer.name() + "}";
  }

  /** A request by identity (requests may compare equal by content). */
  private record Started(Request<?> request) {
    @Override
    public boolean equals(Object o) {
      return o instanceof Started s && s.request == request;
    }

    @Override
    public int hashCode() {
      return System.identityHashCode(request);
    }
  }

  /**
   * The instance handed to the client for one pick (it reads like the discovered instance); ends
   * a counted pick at most once.
   */
  private static final class PickedInstance implements ServiceInstance {
    private final ServiceInstance instance;
    private final Node<ServiceInstance> node;
    private final long start;
    private final AtomicBoolean pending;

    PickedInstance(Node<ServiceInstance> node, boolean counted, long start) {
      this.instance = node.value();
      this.node = node;
      this.start = start;
      this.pending = new AtomicBoolean(counted);
    }

    void end(CompletionContext<?, ?, ?> completion, Ticker ticker) {
      if (!pending.compareAndSet(true, false)) {
        return; // not counted, or already ended
      }
      if (completion.status() == CompletionContext.Status.DISCARD) {
        node.cancel();
        return;
      }
      boolean success = completion.status() == CompletionContext.Status.SUCCESS
          && !(HTTP && serverError(completion.getClientResponse()));
      node.complete(ticker.nanoTime() - start, success);
    }

    @Override
    public String getInstanceId() {
      return instance.getInstanceId();
    }

    @Override
    public String getServiceId() {
      return instance.getServiceId();
    }

    @Override
    public String getHost() {
      return instance.getHost();
    }

    @Override
    public int getPort() {
      return instance.getPort();
    }

    @Override
    public boolean isSecure() {
      return instance.isSecure();
    }

    @Override
    public URI getUri() {
      return instance.getUri();
    }

    @Override
    public Map<String, String> getMetadata() {
      return instance.getMetadata();
    }

    @Override
    public String getScheme() {
      return instance.getScheme();
    }

    @Override
    public String toString() {
      return instance.toString();
    }
  }
}
