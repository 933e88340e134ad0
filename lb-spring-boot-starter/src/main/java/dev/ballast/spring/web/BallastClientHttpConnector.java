package dev.ballast.spring.web;

import dev.ballast.netty.BallastClient;
import dev.ballast.netty.http.HttpRequest;
import dev.ballast.netty.http.HttpResponse;
import java.net.URI;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;
import org.reactivestreams.Publisher;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferFactory;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.core.io.buffer.DefaultDataBufferFactory;
import org.springframework.http.HttpCookie;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.ResponseCookie;
import org.springframework.http.client.reactive.AbstractClientHttpRequest;
import org.springframework.http.client.reactive.ClientHttpConnector;
import org.springframework.http.client.reactive.ClientHttpRequest;
import org.springframework.http.client.reactive.ClientHttpResponse;
import org.springframework.util.LinkedMultiValueMap;
import org.springframework.util.MultiValueMap;
import org.springframework.web.reactive.function.client.WebClientRequestException;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * A {@link ClientHttpConnector} for {@code WebClient} that sends a request whose URL's host is the
 * name of a Ballast HTTP client ({@code http://orders/items?id=7}) through that client, with its
 * pool, deadline, retries, balancer and response classification, and every other request through
 * the connector it wraps. The URL's scheme and port are not used: the client's endpoints say
 * where to connect.
 *
 * <p>The body is gathered, then sent with the method, path and query and the header fields
 * (repeated ones kept, cookies as one {@code Cookie} field) as Ballast's {@link HttpRequest}; the
 * response's {@code Mono} completes from Ballast's future, on the thread that ends the call,
 * without blocking any. Response cookies are left in the {@code Set-Cookie} fields. A call that
 * fails in Ballast (deadline, no endpoint, connect) ends in a {@link WebClientRequestException}
 * whose message names the client, with Ballast's exception as its cause. The request attribute
 * {@link BallastClientHttpRequestFactory#TIMEOUT_ATTRIBUTE} (a {@code Duration}) replaces the
 * client's timeout for one call, and {@link BallastClientHttpRequestFactory#KEY_ATTRIBUTE} gives
 * it a key for a balancer that picks by key.
 */
public final class BallastClientHttpConnector implements ClientHttpConnector {

  private final Map<String, BallastClient<HttpRequest, HttpResponse>> clients;
  private final ClientHttpConnector others;

  /**
   * Creates the connector.
   *
   * @param clients the HTTP clients by name (the host that selects them)
   * @param others the connector of the requests to every other host
   */
  public BallastClientHttpConnector(
      Map<String, BallastClient<HttpRequest, HttpResponse>> clients, ClientHttpConnector others) {
    this.clients = Map.copyOf(Objects.requireNonNull(clients, "clients"));
    this.others = Objects.requireNonNull(others, "others");
  }

  /**
   * Exchanges the request through the Ballast client the URI's host names, or else through the
   * wrapped connector.
   */
  @Override
  public Mono<ClientHttpResponse> connect(HttpMethod method, URI uri,
      Function<? super ClientHttpRequest, Mono<Void>> requestCallback) {
    BallastClient<HttpRequest, HttpResponse> client = HttpExchanges.route(clients, uri);
    if (client == null) {
      return others.connect(method, uri, requestCallback);
    }
    Request request = new Request(method, uri);
    // A request Ballast refuses (an IllegalArgumentException naming the bad part) fails here,
    // and WebClient wraps it as it wraps any other connector's failure.
    return requestCallback.apply(request)
        .then(Mono.defer(() -> Mono.fromFuture(HttpExchanges.call(client, method, uri,
                request.getHeaders(), request.body, request.getAttributes()))
            .onErrorMap(t -> {
              Throwable cause = HttpExchanges.unwrap(t);
              return new Failure(HttpExchanges.failure(client.name(), method, uri, cause), cause,
                  method, uri, request.getHeaders());
            })))
        .map(Response::new);
  }

  @Override
  public String toString() {
    return "BallastClientHttpConnector" + clients.keySet() + " else " + others;
  }

  /** Gathers what WebClient writes: headers, cookies, attributes and the body. */
  private static final class Request extends AbstractClientHttpRequest {
    private final HttpMethod method;
    private final URI uri;
    private byte[] body = new byte[0];

    Request(HttpMethod method, URI uri) {
      this.method = method;
      this.uri = uri;
    }

    @Override
    public HttpMethod getMethod() {
      return method;
    }

    @Override
    public URI getURI() {
      return uri;
    }

    @Override
    public DataBufferFactory bufferFactory() {
      return DefaultDataBufferFactory.sharedInstance;
    }

    @Override
    @SuppressWarnings("unchecked")
    public <T> T getNativeRequest() {
      return (T) this;
    }

    @Override
    public Mono<Void> writeWith(Publisher<? extends DataBuffer> body) {
      return doCommit(() -> DataBufferUtils.join(body).doOnNext(joined -> {
        byte[] bytes = new byte[joined.readableByteCount()];
        joined.read(bytes);
        DataBufferUtils.release(joined);
        this.body = bytes;
      }).then());
    }

    @Override
    public Mono<Void> writeAndFlushWith(Publisher<? extends Publisher<? extends DataBuffer>> body) {
      return writeWith(Flux.from(body).concatMap(Flux::from));
    }

    @Override
    public Mono<Void> setComplete() {
      return doCommit();
    }

    @Override
    protected void applyHeaders() {}

    @Override
    protected void applyCookies() {
      StringBuilder cookie = new StringBuilder();
      for (List<HttpCookie> values : getCookies().values()) {
        for (HttpCookie c : values) {
          cookie.append(cookie.isEmpty() ? "" : "; ").append(c.getName()).append('=')
              .append(c.getValue());
        }
      }
      if (!cookie.isEmpty()) {
        getHeaders().add(HttpHeaders.COOKIE, cookie.toString());
      }
    }
  }

  private static final class Response implements ClientHttpResponse {
    private final HttpResponse response;
    private final HttpHeaders headers;

    Response(HttpResponse response) {
      this.response = response;
      this.headers = HttpExchanges.headers(response.headers());
    }

    @Override
    public HttpStatusCode getStatusCode() {
      return HttpStatusCode.valueOf(response.status());
    }

    @Override
    public MultiValueMap<String, ResponseCookie> getCookies() {
      return new LinkedMultiValueMap<>();
    }

    @Override
    public HttpHeaders getHeaders() {
      return headers;
    }

    @Override
    public Flux<DataBuffer> getBody() {
      return Flux.defer(() -> response.body().length == 0 ? Flux.empty()
          : Flux.just(DefaultDataBufferFactory.sharedInstance.wrap(response.body())));
    }
  }

  /** WebClient's request failure, with a message that names the Ballast client. */
  private static final class Failure extends WebClientRequestException {
    private static final long serialVersionUID = 1L;
    private final String message;

    Failure(String message, Throwable cause, HttpMethod method, URI uri, HttpHeaders headers) {
      super(cause, method, uri, headers);
      this.message = message;
    }

    @Override
    public String getMessage() {
      return message;
    }
  }
}
