package dev.courier.core.internal;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The read-only HTTP side of a Courier service ({@code /health}, {@code /metrics}, a service's own
 * views), with the rules a probe or a scraper may rely on: exact paths only ({@code /healthz} and
 * {@code /health/x} are 404), GET and HEAD only (405 with {@code Allow} otherwise), a path that
 * does not decode or is too long is 400, an HTTP version other than 1.0 or 1.1 is 505. One route
 * may end in a parameter ({@code /v1/groups/{group}}).
 */
public final class HttpEndpoints implements AutoCloseable {

  /** Writes a large body as it goes, instead of building it in memory first. */
  @FunctionalInterface
  public interface BodyWriter {
    void writeTo(java.io.Writer out) throws IOException;
  }

  /** What a route answers: a body in full, or one written as it streams out. */
  public record Response(int status, String contentType, String body, BodyWriter writer) {
    public static Response json(int status, String body) {
      return new Response(status, "application/json", body, null);
    }

    public static Response text(int status, String contentType, String body) {
      return new Response(status, contentType, body, null);
    }

    public static Response streamed(int status, String contentType, BodyWriter writer) {
      return new Response(status, contentType, null, writer);
    }
  }

  private static final Logger LOG = LoggerFactory.getLogger(HttpEndpoints.class);
  private static final int MAX_PATH = 2048;

  private final HttpServer server;
  private final ExecutorService executor;

  private HttpEndpoints(HttpServer server, ExecutorService executor) {
    this.server = server;
    this.executor = executor;
  }

  public static Builder builder() {
    return new Builder();
  }

  public int port() {
    return server.getAddress().getPort();
  }

  @Override
  public void close() {
    server.stop(0);
    executor.shutdownNow();
  }

  /** Routes by exact path, plus at most one prefix whose rest is a parameter. */
  public static final class Builder {
    private final Map<String, Supplier<Response>> exact = new LinkedHashMap<>();
    private String prefix;
    private Function<String, Response> parameterized;

    private Builder() {}

    public Builder get(String path, Supplier<Response> route) {
      exact.put(path, route);
      return this;
    }

    /** {@code prefix} ending in {@code /}; the decoded rest of the path is the parameter. */
    public Builder getWithParameter(String prefix, Function<String, Response> route) {
      if (!prefix.endsWith("/")) {
        throw new IllegalArgumentException("prefix must end with '/': " + prefix);
      }
      this.prefix = prefix;
      this.parameterized = route;
      return this;
    }

    /**
     * Listens on the port (0 picks a free one).
     *
     * @throws IOException when the port cannot be bound
     */
    public HttpEndpoints start(int port) throws IOException {
      HttpServer server = HttpServer.create(new InetSocketAddress(port), 0);
      ExecutorService executor =
          Executors.newFixedThreadPool(
              2,
              r -> {
                Thread t = new Thread(r, "courier-http");
                t.setDaemon(true);
                return t;
              });
      server.setExecutor(executor);
      server.createContext("/", this::handle);
      server.start();
      return new HttpEndpoints(server, executor);
    }

    private void handle(HttpExchange ex) throws IOException {
      try {
        Response response = route(ex);
        send(ex, response, ex.getRequestMethod().equals("HEAD"));
      } catch (RuntimeException e) {
        LOG.warn(
            "HTTP {} {} failed: {}", ex.getRequestMethod(), ex.getRequestURI(), e.toString(), e);
        send(ex, Response.json(500, error("internal error")), false);
      } finally {
        ex.close();
      }
    }

    private Response route(HttpExchange ex) {
      String protocol = ex.getProtocol();
      if (!protocol.equals("HTTP/1.1") && !protocol.equals("HTTP/1.0")) {
        return Response.json(505, error("HTTP version not supported: " + protocol));
      }
      URI uri = ex.getRequestURI();
      String raw = uri.getRawPath();
      if (raw == null || raw.length() > MAX_PATH) {
        return Response.json(400, error("path missing or longer than " + MAX_PATH));
      }
      Optional<String> path = decode(raw);
      if (path.isEmpty()) {
        return Response.json(400, error("path is not valid percent-encoded UTF-8"));
      }
      String p = path.get();
      Supplier<Response> route = exact.get(p);
      String parameter = null;
      if (route == null && prefix != null && p.startsWith(prefix)) {
        parameter = p.substring(prefix.length());
        if (parameter.isEmpty() || parameter.contains("/")) {
          parameter = null;
        }
      }
      if (route == null && parameter == null) {
        return Response.json(404, error("no such path: " + p));
      }
      String method = ex.getRequestMethod();
      if (!method.equals("GET") && !method.equals("HEAD")) {
        ex.getResponseHeaders().set("Allow", "GET, HEAD");
        return Response.json(405, error(method + " is not allowed; use GET or HEAD"));
      }
      return route != null ? route.get() : parameterized.apply(parameter);
    }

    private static Optional<String> decode(String raw) {
      try {
        // URLDecoder would turn '+' into a space: paths keep it.
        String decoded = URLDecoder.decode(raw.replace("+", "%2B"), StandardCharsets.UTF_8);
        return decoded.indexOf('\uFFFD') >= 0 ? Optional.empty() : Optional.of(decoded);
      } catch (IllegalArgumentException e) {
        return Optional.empty();
      }
    }

    private static void send(HttpExchange ex, Response response, boolean head) throws IOException {
      if (response.writer() != null) {
        ex.getResponseHeaders().set("Content-Type", response.contentType());
        if (head) {
          ex.sendResponseHeaders(response.status(), -1);
          return;
        }
        ex.sendResponseHeaders(response.status(), 0); // chunked: the size is not known up front
        try (java.io.Writer out =
            new java.io.BufferedWriter(
                new java.io.OutputStreamWriter(ex.getResponseBody(), StandardCharsets.UTF_8),
                64 * 1024)) {
          response.writer().writeTo(out);
        }
        return;
      }
      byte[] body = response.body().getBytes(StandardCharsets.UTF_8);
      ex.getResponseHeaders().set("Content-Type", response.contentType());
      if (head) {
        ex.sendResponseHeaders(response.status(), -1);
        return;
      }
      ex.sendResponseHeaders(response.status(), body.length == 0 ? -1 : body.length);
      try (OutputStream out = ex.getResponseBody()) {
        out.write(body);
      }
    }
  }

  /** A JSON error body. */
  public static String error(String message) {
    return "{\"error\":\"" + Json.escape(message) + "\"}";
  }
}
