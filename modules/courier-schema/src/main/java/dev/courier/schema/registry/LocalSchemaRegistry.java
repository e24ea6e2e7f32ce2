package dev.courier.schema.registry;

import com.sun.net.httpserver.HttpServer;
import dev.courier.schema.CompatibilityLevel;
import dev.courier.schema.internal.RegistryRoutes;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * An in-memory schema registry that speaks Confluent's REST API (the subset clients use: register,
 * lookup, get by id, versions, compatibility checks, config) with Confluent's status codes, error
 * codes and bodies, and real compatibility checks. For tests, the lab and local development: it
 * keeps nothing across restarts.
 */
public final class LocalSchemaRegistry implements AutoCloseable {

  private final HttpServer server;
  private final ExecutorService executor;
  private final RegistryRoutes routes;

  private LocalSchemaRegistry(HttpServer server, ExecutorService executor, RegistryRoutes routes) {
    this.server = server;
    this.executor = executor;
    this.routes = routes;
  }

  public static Builder builder() {
    return new Builder();
  }

  /** Starts on a free loopback port, BACKWARD by default, without authentication. */
  public static LocalSchemaRegistry start() {
    return builder().start();
  }

  /** The {@code schema.registry.url} of this registry. */
  public String url() {
    return "http://" + server.getAddress().getHostString() + ":" + server.getAddress().getPort();
  }

  /** How many HTTP requests it has answered. */
  public long requestCount() {
    return routes.requests();
  }

  /** Requests per route, e.g. {@code POST /subjects/{subject}/versions=1}. */
  public Map<String, Long> requestCountsByRoute() {
    return routes.requestsByRoute();
  }

  /** Answers the next {@code count} requests with {@code status} (failure tests). */
  public void failNextRequests(int count, int status) {
    routes.injectFailures(count, status);
  }

  @Override
  public void close() {
    server.stop(0);
    executor.shutdownNow();
  }

  /** Options of a {@link LocalSchemaRegistry}. */
  public static final class Builder {
    private int port;
    private CompatibilityLevel globalLevel = CompatibilityLevel.BACKWARD;
    private Optional<String> authorization = Optional.empty();

    public Builder port(int port) {
      this.port = port;
      return this;
    }

    public Builder globalCompatibility(CompatibilityLevel level) {
      this.globalLevel = Objects.requireNonNull(level, "level");
      return this;
    }

    /** Requires HTTP Basic authentication with these credentials. */
    public Builder basicAuth(String user, String password) {
      String token = user + ":" + password;
      this.authorization =
          Optional.of(
              "Basic "
                  + Base64.getEncoder().encodeToString(token.getBytes(StandardCharsets.UTF_8)));
      return this;
    }

    /** Requires this Bearer token. */
    public Builder bearerAuth(String token) {
      this.authorization = Optional.of("Bearer " + token);
      return this;
    }

    public LocalSchemaRegistry start() {
      RegistryRoutes routes = new RegistryRoutes(globalLevel, authorization);
      try {
        HttpServer server =
            HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 64);
        ExecutorService executor =
            Executors.newFixedThreadPool(
                4,
                r -> {
                  Thread t = new Thread(r, "courier-schema-registry");
                  t.setDaemon(true);
                  return t;
                });
        server.setExecutor(executor);
        server.createContext("/", routes);
        server.start();
        return new LocalSchemaRegistry(server, executor, routes);
      } catch (IOException e) {
        throw new UncheckedIOException(
            "cannot start the local schema registry on port " + port + ": " + e.getMessage(), e);
      }
    }
  }
}
