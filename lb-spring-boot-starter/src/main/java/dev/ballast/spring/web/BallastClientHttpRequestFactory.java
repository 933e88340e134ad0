package dev.ballast.spring.web;

import dev.ballast.netty.BallastClient;
import dev.ballast.netty.http.HttpRequest;
import dev.ballast.netty.http.HttpResponse;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.net.URI;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;
import org.springframework.http.HttpStatus;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.client.AbstractBufferingClientHttpRequest;
import org.springframework.http.client.ClientHttpRequest;
import org.springframework.http.client.ClientHttpRequestFactory;
import org.springframework.http.client.ClientHttpResponse;
import org.springframework.web.client.ResourceAccessException;

/**
 * A {@link ClientHttpRequestFactory} for {@code RestClient} and {@code RestTemplate} that sends a
 * request whose URL's host is the name of a Ballast HTTP client ({@code http://orders/items?id=7})
 * through that client, with its pool, deadline, retries, balancer and response classification,
 * and creates every other request with the factory it wraps. The URL's scheme and port are not
 * used: the client's endpoints say where to connect.
 *
 * <p>The method, path and query, header fields (repeated ones kept) and the buffered body go to
 * Ballast's {@link HttpRequest}; the status, fields and body come back. Any status is a response,
 * as with Spring's own factories (a 503 the client did not retry away reaches the caller). A call
 * that fails in Ballast (deadline, no endpoint, connect) throws a {@link ResourceAccessException}
 * that names the client, with Ballast's exception as its cause. The request attribute {@link
 * #TIMEOUT_ATTRIBUTE} (a {@code Duration}) replaces the client's timeout for one call:
 * {@code restClient.get().uri("http://orders/items").attribute(TIMEOUT_ATTRIBUTE,
 * Duration.ofMillis(300))}; {@link #KEY_ATTRIBUTE} gives it a key, for a balancer that picks by
 * key.
 */
public final class BallastClientHttpRequestFactory implements ClientHttpRequestFactory {

  /**
   * The request attribute that sets one call's deadline, retries included: a {@link
   * java.time.Duration}; without it the client's {@code timeout} applies.
   */
  public static final String TIMEOUT_ATTRIBUTE = "dev.ballast.timeout";

  /**
   * The request attribute that gives the call its key (a {@code String}), for a client whose
   * balancer picks by key ({@code ring-hash}, {@code ketama}, {@code maglev}): every call of a key
   * goes to the same endpoint while it is open. Without it such a balancer gets no key.
   */
  public static final String KEY_ATTRIBUTE = "dev.ballast.key";

  private final Map<String, BallastClient<HttpRequest, HttpResponse>> clients;
  private final ClientHttpRequestFactory others;

  /**
   * Creates the factory.
   *
   * @param clients the HTTP clients by name (the host that selects them)
   * @param others the factory of the requests to every other host
   */
  public BallastClientHttpRequestFactory(
      Map<String, BallastClient<HttpRequest, HttpResponse>> clients,
      ClientHttpRequestFactory others) {
    this.clients = Map.copyOf(Objects.requireNonNull(clients, "clients"));
    this.others = Objects.requireNonNull(others, "others");
  }

  /**
   * Returns a request through the Ballast client the URI's host names, or else the wrapped
   * factory's request.
   */
  @Override
  public ClientHttpRequest createRequest(URI uri, HttpMethod httpMethod)
      throws java.io.IOException {
    BallastClient<HttpRequest, HttpResponse> client = HttpExchanges.route(clients, uri);
    return client == null
        ? others.createRequest(uri, httpMethod)
        : new Request(client, uri, httpMethod);
  }

  @Override
  public String toString() {
    return "BallastClientHttpRequestFactory" + clients.keySet() + " else " + others;
  }

  private static final class Request extends AbstractBufferingClientHttpRequest {
    private final BallastClient<HttpRequest, HttpResponse> client;
    private final URI uri;
    private final HttpMethod method;

    Request(BallastClient<HttpRequest, HttpResponse> client, URI uri, HttpMethod method) {
      this.client = client;
      this.uri = uri;
      this.method = method;
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
    protected ClientHttpResponse executeInternal(HttpHeaders headers, byte[] body)
        throws InterruptedIOException {
      CompletableFuture<HttpResponse> call =
          HttpExchanges.call(client, method, uri, headers, body, getAttributes());
      try {
        return new Response(call.get());
      } catch (ExecutionException e) {
        Throwable cause = HttpExchanges.unwrap(e);
        ResourceAccessException failure = new ResourceAccessException(
            HttpExchanges.failure(client.name(), method, uri, cause));
        failure.initCause(cause);
        throw failure;
      } catch (InterruptedException e) {
        call.cancel(true);
        Thread.currentThread().interrupt();
        throw new InterruptedIOException("interrupted awaiting Ballast client " + client.name());
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
    public String getStatusText() {
      HttpStatus s = HttpStatus.resolve(response.status());
      return s == null ? "" : s.getReasonPhrase();
    }

    @Override
    public HttpHeaders getHeaders() {
      return headers;
    }

    @Override
    public InputStream getBody() {
      return new ByteArrayInputStream(response.body());
    }

    @Override
    public void close() {}
  }
}
