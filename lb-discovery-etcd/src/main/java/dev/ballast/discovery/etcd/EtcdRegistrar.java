package dev.ballast.discovery.etcd;

import dev.ballast.core.Endpoint;
import dev.ballast.core.source.Registrar;
import dev.ballast.core.source.Registration;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.lease.LeaseKeepAliveResponse;
import io.etcd.jetcd.options.PutOption;
import io.etcd.jetcd.support.CloseableClient;
import io.grpc.stub.StreamObserver;
import java.time.Duration;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Registers servers in etcd as keys {@code <prefix><service>/<address>} whose value is the
 * endpoint's textual form, as {@link EtcdSource} reads them, each under a lease of its own
 * (TTL 10 s by default) that jetcd keeps alive.
 *
 * <p>If the lease is lost (the server was unreachable for longer than the TTL), the
 * registration takes a new lease and writes its key again; a weight or label change that could
 * not be written is written with the next keep-alive. If the process dies, nothing keeps the
 * lease alive and etcd deletes the key when it expires.
 *
 * <pre>{@code
 * Registrar registrar = EtcdRegistrar.of(etcd, "/services/");
 * Registration r = registrar.register("orders", Endpoint.parse("10.0.0.7:8080;weight=3;zone=a"));
 * r.close(); // deletes the key and revokes the lease
 * }</pre>
 */
public final class EtcdRegistrar implements Registrar {

  private static final long TIMEOUT_MS = 15_000;

  private final Client client;
  private final String prefix;
  private final long ttlSeconds;
  private final boolean ownsClient;
  private final Set<Entry> open = ConcurrentHashMap.newKeySet();
  private volatile boolean closed;

  private EtcdRegistrar(Client client, String prefix, Duration ttl, boolean ownsClient) {
    this.client = Objects.requireNonNull(client, "client");
    this.prefix = EtcdSource.checkPrefix(prefix);
    Objects.requireNonNull(ttl, "ttl");
    if (ttl.toSeconds() < 1) {
      throw new IllegalArgumentException("ttl: " + ttl + " (expected: at least 1 s)");
    }
    this.ttlSeconds = ttl.toSeconds();
    this.ownsClient = ownsClient;
  }

  /**
   * Returns a registrar writing under {@code prefix} through a client the caller owns (never
   * closed here), with leases of 10 s.
   */
  public static EtcdRegistrar of(Client client, String prefix) {
    return new EtcdRegistrar(client, prefix, Duration.ofSeconds(10), false);
  }

  /**
   * Returns a registrar like {@link #of(Client, String)} with another lease TTL: how long after
   * this process dies its keys go (etcd may raise TTLs below its minimum, about 2 s).
   *
   * @throws IllegalArgumentException if the TTL is under 1 s
   */
  public static EtcdRegistrar of(Client client, String prefix, Duration ttl) {
    return new EtcdRegistrar(client, prefix, ttl, false);
  }

  /**
   * Returns a registrar with a client of its own to {@code endpoints} (e.g. {@code
   * http://127.0.0.1:2379}), closed with the registrar.
   */
  public static EtcdRegistrar connect(String prefix, Duration ttl, String... endpoints) {
    return new EtcdRegistrar(Client.builder().endpoints(endpoints).build(), prefix, ttl, true);
  }

  /**
   * Takes a lease, writes {@code <prefix><service>/<address>} under it and keeps it alive;
   * waits up to 15 s for etcd.
   *
   * @throws IllegalArgumentException if the service name is empty or holds a {@code /}
   * @throws IllegalStateException if the registrar is closed or etcd did not answer in time
   */
  @Override
  public Registration register(String service, Endpoint endpoint) {
    Registrar.checkService(service);
    Objects.requireNonNull(endpoint, "endpoint");
    if (closed) {
      throw new IllegalStateException("registrar closed");
    }
    Entry e = new Entry(prefix + service + "/" + endpoint.address(), endpoint);
    try {
      e.establish();
    } catch (RuntimeException ex) {
      e.close();
      throw ex;
    }
    open.add(e);
    return e;
  }

  /** Deletes every key still registered and revokes its lease; closes an owned client. */
  @Override
  public void close() {
    closed = true;
    for (Entry e : open) {
      e.close();
    }
    if (ownsClient) {
      client.close();
    }
  }

  private static <T> T await(CompletableFuture<T> f, String what) {
    try {
      return f.get(TIMEOUT_MS, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(what + ": interrupted", e);
    } catch (ExecutionException | TimeoutException e) {
      throw new IllegalStateException(what + ": " + e, e);
    }
  }

  private final class Entry implements Registration, StreamObserver<LeaseKeepAliveResponse> {
    private final ByteSequence key;
    private volatile Endpoint endpoint;
    private long leaseId; // guarded by this
    private CloseableClient keepAlive; // guarded by this
    private boolean unwritten; // guarded by this: the last update did not reach etcd
    private boolean entryClosed; // guarded by this

    Entry(String key, Endpoint endpoint) {
      this.key = EtcdSource.bytes(key);
      this.endpoint = endpoint;
    }

    // a lease, the key under it, and keep-alives; blocking
    synchronized void establish() {
      leaseId = await(client.getLeaseClient().grant(ttlSeconds), "lease for " + key).getID();
      await(put(endpoint), "put " + key);
      keepAlive = client.getLeaseClient().keepAlive(leaseId, this);
    }

    private CompletableFuture<?> put(Endpoint e) {
      return client.getKVClient().put(key, EtcdSource.bytes(e.toString()),
          PutOption.builder().withLeaseId(leaseId).build());
    }

    @Override
    public Endpoint endpoint() {
      return endpoint;
    }

    @Override
    public synchronized void update(Endpoint next) {
      Registration.checkUpdate(endpoint, next, entryClosed);
      endpoint = next;
      unwritten = true;
      put(next).orTimeout(TIMEOUT_MS, TimeUnit.MILLISECONDS).whenComplete((r, e) -> {
        if (e == null) {
          synchronized (this) {
            if (endpoint == next) {
              unwritten = false;
            }
          }
        }
      });
    }

    @Override
    public void onNext(LeaseKeepAliveResponse r) {
      synchronized (this) {
        if (unwritten && !entryClosed) {
          Endpoint e = endpoint;
          put(e).whenComplete((ok, err) -> {
            synchronized (this) {
              if (err == null && endpoint == e) {
                unwritten = false;
              }
            }
          });
        }
      }
    }

    @Override
    public void onError(Throwable t) {
      // jetcd retries the keep-alive stream itself; only a lease etcd no longer has is lost
      if (String.valueOf(t.getMessage()).contains("lease not found")) {
        reestablishLater();
      }
    }

    @Override
    public void onCompleted() {
      reestablishLater(); // no keep-alive answer within the TTL: the lease is gone
    }

    // off the sources' retry thread: re-establishing blocks (up to 15 s per step) while etcd
    // is away
    private void reestablishLater() {
      CompletableFuture.delayedExecutor(500, TimeUnit.MILLISECONDS).execute(() -> {
        synchronized (this) {
          if (entryClosed) {
            return;
          }
          if (keepAlive != null) {
            keepAlive.close();
          }
          try {
            establish();
            unwritten = false;
          } catch (RuntimeException e) {
            reestablishLater();
          }
        }
      });
    }

    @Override
    public synchronized void close() {
      if (entryClosed) {
        return;
      }
      entryClosed = true;
      open.remove(this);
      if (keepAlive != null) {
        keepAlive.close();
      }
      if (leaseId != 0) {
        // revoking deletes the key with the lease; bounded, as etcd may be gone
        try {
          client.getLeaseClient().revoke(leaseId).get(3, TimeUnit.SECONDS);
        } catch (Exception e) {
          // the lease expires on its own
        }
      }
    }
  }
}
