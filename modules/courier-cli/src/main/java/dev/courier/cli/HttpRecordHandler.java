package dev.courier.cli;

import dev.courier.core.CourierHeaders;
import dev.courier.core.PermanentError;
import dev.courier.retry.RecordHandler;
import dev.courier.retry.RetryConfig;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.Configurable;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigException;

/**
 * The retry worker's default work: POST the record's value to an HTTP endpoint, so a service in any
 * language gets Courier's retry ladder in front of it. The operation key goes in {@code
 * Idempotency-Key} (the IETF draft header) so the endpoint can deduplicate; the record key in
 * {@code Courier-Key} (keys of any bytes: see {@link HttpKeys}); the coordinates in {@code
 * Courier-Topic}, {@code Courier-Partition}, {@code Courier-Offset}; the trace in {@code
 * traceparent}.
 *
 * <p>2xx is success. 408, 425, 429 and 5xx, timeouts and refused connections are transient (retried
 * through the tiers); any other status is permanent (straight to the DLT, status and body in the
 * reason).
 */
public final class HttpRecordHandler implements RecordHandler<byte[], byte[]>, Configurable {

  static final String TARGET_URL = "retry.worker.target.url";
  static final String TIMEOUT_MS = "retry.worker.target.timeout.ms";

  private HttpClient client;
  private URI target;
  private Duration timeout;
  private String operationKeyHeader;

  @Override
  public void configure(Map<String, ?> settings) {
    AbstractConfig config = new AbstractConfig(RetryWorkerCommand.DEFINITION, settings, false);
    String url = config.getString(TARGET_URL);
    if (url == null || url.isBlank()) {
      throw new ConfigException(
          TARGET_URL, url, "required by the default handler (or set retry.worker.handler.class)");
    }
    try {
      this.target = URI.create(url);
    } catch (IllegalArgumentException e) {
      throw new ConfigException(TARGET_URL, url, "not a URL: " + e.getMessage());
    }
    if (target.getScheme() == null || !target.getScheme().startsWith("http")) {
      throw new ConfigException(TARGET_URL, url, "not an http(s) URL");
    }
    this.timeout = Duration.ofMillis(config.getLong(TIMEOUT_MS));
    this.operationKeyHeader = config.getString(RetryConfig.OPERATION_KEY_HEADER);
    this.client = HttpClient.newBuilder().connectTimeout(timeout).build();
  }

  @Override
  public void handle(ConsumerRecord<byte[], byte[]> record) throws Exception {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(target)
            .timeout(timeout)
            .header("Content-Type", "application/octet-stream")
            .header("Courier-Topic", record.topic())
            .header("Courier-Partition", String.valueOf(record.partition()))
            .header("Courier-Offset", String.valueOf(record.offset()))
            .POST(
                HttpRequest.BodyPublishers.ofByteArray(
                    record.value() == null ? new byte[0] : record.value()));
    byte[] operationKey = operationKey(record);
    if (operationKey != null) {
      request.header(HttpKeys.IDEMPOTENCY_KEY, HttpKeys.idempotencyKey(operationKey));
    }
    byte[] key = record.key();
    if (key != null && HttpKeys.plain(key)) {
      request.header(HttpKeys.KEY, new String(key, java.nio.charset.StandardCharsets.US_ASCII));
    } else if (key != null) {
      request.header(HttpKeys.KEY, HttpKeys.base64url(key));
      request.header(HttpKeys.KEY_ENCODING, HttpKeys.BASE64URL);
    }
    trace(record, request);
    HttpResponse<String> response =
        client.send(request.build(), HttpResponse.BodyHandlers.ofString());
    int status = response.statusCode();
    if (status / 100 == 2) {
      return;
    }
    String detail = "HTTP " + status + " from " + target + ": " + abbreviate(response.body());
    if (status == 408 || status == 425 || status == 429 || status >= 500) {
      throw new Unavailable(detail);
    }
    throw new Refused(status, detail);
  }

  /**
   * The endpoint continues the trace: the attempt's span when the worker traces (the handler runs
   * inside it), else the record's own {@code traceparent} and {@code tracestate} as they came.
   */
  private static void trace(ConsumerRecord<byte[], byte[]> record, HttpRequest.Builder request) {
    if (Span.current().getSpanContext().isValid()) {
      W3CTraceContextPropagator.getInstance()
          .inject(Context.current(), request, HttpRequest.Builder::setHeader);
      return;
    }
    for (String name : List.of(CourierHeaders.TRACEPARENT, CourierHeaders.TRACESTATE)) {
      CourierHeaders.text(record.headers(), name).ifPresent(v -> request.setHeader(name, v));
    }
  }

  /** The operation key's bytes, as every Courier consumer resolves it, or null. */
  private byte[] operationKey(ConsumerRecord<byte[], byte[]> record) {
    return CourierHeaders.operationKey(record.headers(), operationKeyHeader).orElse(null);
  }

  private static String abbreviate(String body) {
    return body.length() <= 200 ? body : body.substring(0, 200) + "...";
  }

  /** The endpoint cannot take the record now: a later attempt may succeed. */
  static final class Unavailable extends IOException {
    Unavailable(String message) {
      super(message);
    }
  }

  /** The endpoint refused the record itself: retrying cannot help. */
  static final class Refused extends Exception implements PermanentError {
    private final int status;

    Refused(int status, String message) {
      super(message);
      this.status = status;
    }

    @Override
    public String reason() {
      return "http-" + status;
    }
  }
}
