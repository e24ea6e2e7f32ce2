package dev.courier.schema.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import dev.courier.schema.CompatibilityLevel;
import dev.courier.schema.CompatibilityResult;
import java.io.IOException;
import java.io.OutputStream;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/** The REST routes of Confluent's Schema Registry API that the in-memory registry answers. */
public final class RegistryRoutes implements HttpHandler {

  private final RegistryStore store;
  private final Optional<String> expectedAuthorization;
  private final LongAdder requests = new LongAdder();
  private final Map<String, AtomicLong> requestsByRoute = new ConcurrentHashMap<>();
  private final AtomicInteger failuresToInject = new AtomicInteger();
  private volatile int injectedStatus = 503;

  /**
   * @param expectedAuthorization the exact {@code Authorization} header every request must carry,
   *     or empty for no authentication
   */
  public RegistryRoutes(CompatibilityLevel globalLevel, Optional<String> expectedAuthorization) {
    this.store = new RegistryStore(globalLevel);
    this.expectedAuthorization = expectedAuthorization;
  }

  public long requests() {
    return requests.sum();
  }

  /** Requests per route, e.g. {@code POST /subjects/{subject}/versions}. */
  public Map<String, Long> requestsByRoute() {
    Map<String, Long> copy = new java.util.TreeMap<>();
    requestsByRoute.forEach((route, count) -> copy.put(route, count.get()));
    return copy;
  }

  public void injectFailures(int count, int status) {
    injectedStatus = status;
    failuresToInject.set(count);
  }

  @Override
  public void handle(HttpExchange exchange) throws IOException {
    requests.increment();
    String method = exchange.getRequestMethod();
    String[] parts = pathParts(exchange.getRequestURI().getRawPath());
    String query = Optional.ofNullable(exchange.getRequestURI().getRawQuery()).orElse("");
    int status = 200;
    String body;
    try {
      requestsByRoute
          .computeIfAbsent(method + " " + route(parts), r -> new AtomicLong())
          .incrementAndGet();
      if (failuresToInject.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
        throw RegistryError.injected(injectedStatus);
      }
      if (expectedAuthorization.isPresent()
          && !expectedAuthorization
              .get()
              .equals(exchange.getRequestHeaders().getFirst("Authorization"))) {
        throw RegistryError.unauthorized();
      }
      String requestBody =
          new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
      body = dispatch(method, parts, query, requestBody).toString();
    } catch (RegistryError e) {
      status = e.status;
      body = RegistryJson.error(e.code, e.getMessage());
    } catch (IllegalArgumentException e) {
      status = 422;
      body = RegistryJson.error(422, "Unprocessable entity: " + e.getMessage());
    } catch (RuntimeException e) {
      status = 500;
      body = RegistryJson.error(50001, "Error in the backend data store: " + e);
    }
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("Content-Type", RegistryJson.CONTENT_TYPE);
    exchange.sendResponseHeaders(status, bytes.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(bytes);
    }
  }

  private JsonNode dispatch(String method, String[] p, String query, String body) {
    String route = method + " " + route(p);
    switch (route) {
      case "GET /subjects":
        return array(store.subjects());
      case "POST /subjects/{subject}/versions":
        return RegistryJson.object().put("id", store.register(p[1], schemaOf(body)));
      case "POST /subjects/{subject}":
        return version(store.lookup(p[1], schemaOf(body)));
      case "GET /subjects/{subject}/versions":
        return array(store.versionNumbers(p[1]));
      case "GET /subjects/{subject}/versions/{version}":
        return version(store.version(p[1], p[3]));
      case "GET /subjects/{subject}/versions/{version}/schema":
        return RegistryJson.parse(store.version(p[1], p[3]).schema().toString());
      case "GET /schemas/ids/{id}":
        return RegistryJson.object().put("schema", store.byId(id(p[2])).toString());
      case "POST /compatibility/subjects/{subject}/versions/{version}":
        return compatibility(store.testCompatibility(p[2], p[4], schemaOf(body)), query);
      case "GET /config":
        return RegistryJson.object().put("compatibilityLevel", store.globalLevel().name());
      case "PUT /config":
        return setLevel(null, body);
      case "GET /config/{subject}":
        Optional<CompatibilityLevel> level = store.subjectLevel(p[1]);
        if (level.isEmpty() && !query.contains("defaultToGlobal=true")) {
          throw RegistryError.subjectLevelNotConfigured(p[1]);
        }
        return RegistryJson.object()
            .put("compatibilityLevel", level.orElse(store.globalLevel()).name());
      case "PUT /config/{subject}":
        return setLevel(p[1], body);
      default:
        throw RegistryError.notFound(method + " /" + String.join("/", p));
    }
  }

  private ObjectNode setLevel(String subject, String body) {
    String value = RegistryJson.parse(body).path("compatibility").asText();
    CompatibilityLevel level;
    try {
      level = CompatibilityLevel.parse(value);
    } catch (IllegalArgumentException e) {
      throw RegistryError.invalidCompatibility(value);
    }
    store.setLevel(subject, level);
    return RegistryJson.object().put("compatibility", level.name());
  }

  private static ObjectNode compatibility(CompatibilityResult result, String query) {
    ObjectNode answer = RegistryJson.object().put("is_compatible", result.compatible());
    if (query.contains("verbose=true")) {
      ArrayNode messages = answer.putArray("messages");
      result.messages().forEach(messages::add);
    }
    return answer;
  }

  private static ObjectNode version(RegistryStore.Version v) {
    return RegistryJson.object()
        .put("subject", v.subject())
        .put("version", v.version())
        .put("id", v.id())
        .put("schema", v.schema().toString());
  }

  private static ArrayNode array(java.util.List<?> values) {
    ArrayNode array = RegistryJson.MAPPER.createArrayNode();
    values.forEach(v -> array.addPOJO(v));
    return array;
  }

  private static String schemaOf(String body) {
    JsonNode request = RegistryJson.parse(body);
    String type = request.path("schemaType").asText("AVRO");
    if (!type.equals("AVRO")) {
      throw RegistryError.invalidSchema("schemaType " + type + " is not supported; only AVRO");
    }
    return request.path("schema").asText(null);
  }

  private static int id(String value) {
    try {
      return Integer.parseInt(value);
    } catch (NumberFormatException e) {
      throw RegistryError.schemaNotFound("Schema " + value);
    }
  }

  /** The route template: subject names, versions and ids become placeholders. */
  private static String route(String[] p) {
    StringBuilder route = new StringBuilder();
    for (int i = 0; i < p.length; i++) {
      String previous = i == 0 ? "" : p[i - 1];
      String part =
          switch (previous) {
            case "subjects" -> "{subject}";
            case "versions" -> "{version}";
            case "ids" -> "{id}";
            case "config" -> "{subject}";
            default -> p[i];
          };
      route.append('/').append(part);
    }
    return route.length() == 0 ? "/" : route.toString();
  }

  private static String[] pathParts(String rawPath) {
    String trimmed = rawPath.replaceAll("^/+|/+$", "");
    if (trimmed.isEmpty()) {
      return new String[0];
    }
    String[] parts = trimmed.split("/");
    for (int i = 0; i < parts.length; i++) {
      parts[i] = URLDecoder.decode(parts[i], StandardCharsets.UTF_8);
    }
    return parts;
  }
}
