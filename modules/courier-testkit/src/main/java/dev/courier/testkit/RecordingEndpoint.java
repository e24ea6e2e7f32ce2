package dev.courier.testkit;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * A downstream HTTP service for tests of Courier's retry worker: it takes POSTs on {@code /work},
 * spends a fixed time on each (a slow endpoint), answers with the status a script picks from the
 * request's {@code Idempotency-Key} and how often that key has come, and counts every call per key,
 * so a test can tell records that never arrived from records that arrived twice.
 */
public final class RecordingEndpoint implements AutoCloseable {

  /** The status of a call, from the idempotency key and its call number (1 for the first). */
  @FunctionalInterface
  public interface Script {
    int status(String idempotencyKey, int call);
  }

  private final HttpServer server;
  private final ExecutorService threads;
  private final Map<String, AtomicInteger> calls = new ConcurrentHashMap<>();
  private final Map<String, AtomicInteger> successes = new ConcurrentHashMap<>();
  private final AtomicInteger total = new AtomicInteger();
  private final List<Call> log = Collections.synchronizedList(new ArrayList<>());

  /** One call as the endpoint answered it, in the order the answers were decided. */
  public record Call(String key, int call, int status) {}

  /** A call held before it is answered: {@link #reached} once it arrives, answered at release. */
  public record Hold(CountDownLatch reached, CountDownLatch released) {
    /** Waits until the held call has arrived. */
    public void awaitReached(Duration timeout) throws InterruptedException {
      if (!reached.await(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        throw new AssertionError("the held call did not arrive within " + timeout);
      }
    }

    public void release() {
      released.countDown();
    }
  }

  private final Map<String, Hold> holds = new ConcurrentHashMap<>();

  private RecordingEndpoint(Duration work, Script script) {
    try {
      this.server = HttpServer.create(new InetSocketAddress("localhost", 0), 64);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start the test endpoint", e);
    }
    this.threads = Executors.newFixedThreadPool(16);
    server.setExecutor(threads);
    server.createContext(
        "/work",
        ex -> {
          ex.getRequestBody().readAllBytes();
          String key = String.valueOf(ex.getRequestHeaders().getFirst("Idempotency-Key"));
          int call = calls.computeIfAbsent(key, k -> new AtomicInteger()).incrementAndGet();
          total.incrementAndGet();
          Hold hold = call == 1 ? holds.get(key) : null;
          if (hold != null) {
            hold.reached().countDown();
            try {
              hold.released().await(5, TimeUnit.MINUTES);
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
          }
          // The endpoint is slow on purpose: that is what the worker must cope with.
          LockSupport.parkNanos(work.toNanos());
          int status;
          synchronized (log) {
            status = script.status(key, call);
            log.add(new Call(key, call, status));
          }
          if (status / 100 == 2) {
            successes.computeIfAbsent(key, k -> new AtomicInteger()).incrementAndGet();
          }
          ex.sendResponseHeaders(status, -1);
          ex.close();
        });
    server.start();
  }

  /** Starts on a free port; every call takes {@code work}. */
  public static RecordingEndpoint start(Duration work, Script script) {
    return new RecordingEndpoint(work, script);
  }

  /**
   * The first call of {@code idempotencyKey} is held before it is answered (and before its answer
   * is logged) until released; the other calls go on.
   */
  public Hold holdFirstCall(String idempotencyKey) {
    Hold hold = new Hold(new CountDownLatch(1), new CountDownLatch(1));
    holds.put(idempotencyKey, hold);
    return hold;
  }

  /** The URL to POST to. */
  public String url() {
    return "http://localhost:" + server.getAddress().getPort() + "/work";
  }

  /** Calls that carried this idempotency key. */
  public int calls(String key) {
    AtomicInteger n = calls.get(key);
    return n == null ? 0 : n.get();
  }

  /** Calls with this key that the endpoint answered with 2xx (the work was done). */
  public int successes(String key) {
    AtomicInteger n = successes.get(key);
    return n == null ? 0 : n.get();
  }

  public Set<String> keys() {
    return Set.copyOf(calls.keySet());
  }

  /** Every call so far, in the order they were answered. */
  public List<Call> log() {
    synchronized (log) {
      return List.copyOf(log);
    }
  }

  public int totalCalls() {
    return total.get();
  }

  @Override
  public void close() {
    server.stop(0);
    threads.shutdownNow();
  }
}
