package dev.courier.backpressure;

import com.fasterxml.jackson.databind.JsonNode;
import dev.courier.backpressure.internal.LagJson;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A remote monitor's figures for admission control. Answers are cached; when the monitor cannot be
 * reached the group counts as unknown (the controller's fail-open or fail-closed rule decides),
 * never as healthy data.
 */
final class HttpBacklogSignals implements BacklogSignals {

  private static final Logger LOG = LoggerFactory.getLogger(HttpBacklogSignals.class);

  private record Entry(Optional<GroupLag> lag, Instant at) {}

  private final URI base;
  private final Duration cacheFor;
  private final Clock clock;
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
  private final Map<String, Entry> cache = new ConcurrentHashMap<>();

  HttpBacklogSignals(URI base, Duration cacheFor, Clock clock) {
    this.base = base;
    this.cacheFor = cacheFor;
    this.clock = clock;
  }

  @Override
  public Optional<GroupLag> group(String group) {
    Instant now = clock.instant();
    Entry entry = cache.get(group);
    if (entry == null || Duration.between(entry.at(), now).compareTo(cacheFor) >= 0) {
      entry = new Entry(fetch(group), now);
      cache.put(group, entry);
    }
    return entry.lag();
  }

  private Optional<GroupLag> fetch(String group) {
    URI uri =
        base.resolve(
            "/v1/groups/" + URLEncoder.encode(group, StandardCharsets.UTF_8).replace("+", "%20"));
    try {
      HttpResponse<String> response =
          http.send(
              HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(2)).GET().build(),
              HttpResponse.BodyHandlers.ofString());
      if (response.statusCode() != 200) {
        return Optional.empty();
      }
      JsonNode node = LagJson.MAPPER.readTree(response.body());
      return Optional.of(LagJson.readGroup(node));
    } catch (IOException e) {
      LOG.warn("monitor at {} unreachable: {}", base, e.toString());
      return Optional.empty();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Optional.empty();
    }
  }
}
