package dev.courier.schema.internal;

import com.fasterxml.jackson.databind.JsonNode;
import dev.courier.schema.SchemaRegistryClientConfig;
import dev.courier.schema.SchemaRegistryException;
import java.io.IOException;
import java.net.URI;
import java.net.URLDecoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.random.RandomGenerator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One JSON request to the registry: authentication, fail-over between the configured URLs, and
 * retries with backoff for connection failures and 5xx answers only (a 4xx is an answer, not a
 * failure to get one).
 */
final class RegistryHttp {

  private static final Logger LOG = LoggerFactory.getLogger(RegistryHttp.class);
  private static final String ACCEPT =
      RegistryJson.CONTENT_TYPE
          + ", application/vnd.schemaregistry+json; q=0.9, application/json; q=0.5";

  /** Waits between retries; a seam so tests need not wait. */
  interface Sleeper {
    void sleep(long millis) throws InterruptedException;
  }

  private final List<URI> urls;
  private final Optional<String> authorization;
  private final Map<String, Object> extraHeaders;
  private final HttpClient http;
  private final Duration readTimeout;
  private final int maxRetries;
  private final RetryBackoff backoff;
  private final Sleeper sleeper;
  private final AtomicInteger preferred = new AtomicInteger();
  private final LongAdder sent = new LongAdder();

  private final RegistryMeters outcomes;

  RegistryHttp(SchemaRegistryClientConfig config, RandomGenerator random, Sleeper sleeper) {
    this(config, random, sleeper, RegistryMeters.none());
  }

  RegistryHttp(
      SchemaRegistryClientConfig config,
      RandomGenerator random,
      Sleeper sleeper,
      RegistryMeters outcomes) {
    this.outcomes = outcomes;
    this.urls = config.urls().stream().map(RegistryHttp::withoutUserInfo).toList();
    this.authorization = authorization(config);
    this.extraHeaders = config.requestHeaders();
    this.http =
        HttpClient.newBuilder()
            .connectTimeout(
                Duration.ofMillis(
                    config.getInt(SchemaRegistryClientConfig.HTTP_CONNECT_TIMEOUT_MS)))
            .build();
    this.readTimeout =
        Duration.ofMillis(config.getInt(SchemaRegistryClientConfig.HTTP_READ_TIMEOUT_MS));
    this.maxRetries = config.getInt(SchemaRegistryClientConfig.MAX_RETRIES);
    this.backoff =
        new RetryBackoff(
            config.getInt(SchemaRegistryClientConfig.RETRIES_WAIT_MS),
            config.getInt(SchemaRegistryClientConfig.RETRIES_MAX_WAIT_MS),
            random);
    this.sleeper = sleeper;
  }

  long requestsSent() {
    return sent.sum();
  }

  JsonNode get(String path) {
    return send("GET", path, null);
  }

  JsonNode post(String path, String body) {
    return send("POST", path, body);
  }

  JsonNode put(String path, String body) {
    return send("PUT", path, body);
  }

  private JsonNode send(String method, String path, String body) {
    SchemaRegistryException last = null;
    for (int attempt = 0; attempt <= maxRetries; attempt++) {
      if (attempt > 0) {
        pause(attempt - 1, method, path, last);
      }
      // Every attempt starts at the URL that answered last, then tries the others in turn.
      int start = preferred.get();
      for (int i = 0; i < urls.size(); i++) {
        int index = (start + i) % urls.size();
        URI base = urls.get(index);
        try {
          sent.increment();
          HttpResponse<String> response =
              http.send(
                  request(base, method, path, body),
                  HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
          preferred.set(index);
          if (response.statusCode() < 300) {
            outcomes.ok().increment();
            return response.body().isBlank()
                ? RegistryJson.object()
                : RegistryJson.parse(response.body());
          }
          SchemaRegistryException error = toException(response, method, base, path);
          if (!error.retriable()) {
            outcomes.refused().increment();
            throw error;
          }
          outcomes.failed().increment();
          last = error;
        } catch (IOException e) {
          outcomes.failed().increment();
          last = new SchemaRegistryException(0, 0, method + " " + base + path + " failed: " + e, e);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new SchemaRegistryException(0, 0, "interrupted during " + method + " " + path, e);
        }
      }
    }
    throw new SchemaRegistryException(
        last.status(),
        last.errorCode(),
        last.getMessage() + " (gave up after " + (maxRetries + 1) + " attempts on " + urls + ")",
        last);
  }

  private void pause(int retry, String method, String path, SchemaRegistryException cause) {
    long delay = backoff.delayMs(retry);
    LOG.warn(
        "registry {} {} failed ({}); retry {} of {} in {} ms",
        method,
        path,
        cause.getMessage(),
        retry + 1,
        maxRetries,
        delay);
    try {
      sleeper.sleep(delay);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new SchemaRegistryException(0, 0, "interrupted while waiting to retry " + path, e);
    }
  }

  private HttpRequest request(URI base, String method, String path, String body) {
    HttpRequest.Builder builder =
        HttpRequest.newBuilder(URI.create(base.toString().replaceAll("/+$", "") + path))
            .timeout(readTimeout)
            .header("Accept", ACCEPT)
            .method(
                method,
                body == null
                    ? HttpRequest.BodyPublishers.noBody()
                    : HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8));
    if (body != null) {
      builder.header("Content-Type", RegistryJson.CONTENT_TYPE);
    }
    authorization.ifPresent(value -> builder.header("Authorization", value));
    extraHeaders.forEach((name, value) -> builder.header(name, String.valueOf(value)));
    return builder.build();
  }

  private static SchemaRegistryException toException(
      HttpResponse<String> response, String method, URI base, String path) {
    int status = response.statusCode();
    int code = status;
    String message = response.body();
    try {
      JsonNode error = RegistryJson.parse(response.body());
      code = error.path("error_code").asInt(status);
      message = error.path("message").asText(message);
    } catch (IllegalArgumentException notJson) {
      // Proxies and load balancers answer with HTML; keep the status and the raw body.
    }
    return SchemaRegistryException.of(
        status,
        code,
        message
            + " (HTTP "
            + status
            + ", error code "
            + code
            + ", "
            + method
            + " "
            + base
            + path
            + ")",
        path);
  }

  private static Optional<String> authorization(SchemaRegistryClientConfig config) {
    String token = config.getPassword(SchemaRegistryClientConfig.BEARER_AUTH_TOKEN).value();
    if (!token.isEmpty()) {
      return Optional.of("Bearer " + token);
    }
    String userInfo = "";
    if (config
        .getString(SchemaRegistryClientConfig.BASIC_AUTH_CREDENTIALS_SOURCE)
        .equals("USER_INFO")) {
      userInfo = config.userInfo().value();
    } else {
      String raw = URI.create(config.urls().get(0)).getRawUserInfo();
      userInfo = raw == null ? "" : URLDecoder.decode(raw, StandardCharsets.UTF_8);
    }
    return userInfo.isEmpty()
        ? Optional.empty()
        : Optional.of(
            "Basic "
                + Base64.getEncoder().encodeToString(userInfo.getBytes(StandardCharsets.UTF_8)));
  }

  private static URI withoutUserInfo(String url) {
    URI uri = URI.create(url.trim());
    if (uri.getUserInfo() == null) {
      return uri;
    }
    return URI.create(
        uri.getScheme()
            + "://"
            + uri.getHost()
            + (uri.getPort() < 0 ? "" : ":" + uri.getPort())
            + (uri.getRawPath() == null ? "" : uri.getRawPath()));
  }
}
