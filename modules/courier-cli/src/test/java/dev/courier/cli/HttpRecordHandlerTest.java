package dev.courier.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.Headers;
import com.sun.net.httpserver.HttpServer;
import dev.courier.core.CourierHeaders;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.TraceFlags;
import io.opentelemetry.api.trace.TraceState;
import io.opentelemetry.context.Scope;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The default handler against a real local HTTP endpoint: keys of any bytes arrive intact. */
class HttpRecordHandlerTest {

  private HttpServer endpoint;
  private final List<Headers> received = new CopyOnWriteArrayList<>();
  private final List<Integer> statuses = new CopyOnWriteArrayList<>();
  private HttpRecordHandler handler;

  @BeforeEach
  void start() {
    try {
      endpoint = HttpServer.create(new InetSocketAddress("localhost", 0), 0);
    } catch (java.io.IOException e) {
      throw new IllegalStateException(e);
    }
    endpoint.createContext(
        "/work",
        ex -> {
          received.add(ex.getRequestHeaders());
          ex.getRequestBody().readAllBytes();
          int status = statuses.isEmpty() ? 204 : statuses.remove(0);
          ex.sendResponseHeaders(status, -1);
          ex.close();
        });
    endpoint.start();
    handler = new HttpRecordHandler();
    handler.configure(
        Map.of(
            "bootstrap.servers",
            "unused:9092",
            "retry.group.id",
            "g",
            "retry.topic",
            "t",
            HttpRecordHandler.TARGET_URL,
            "http://localhost:" + endpoint.getAddress().getPort() + "/work"));
  }

  @AfterEach
  void stop() {
    endpoint.stop(0);
  }

  private static ConsumerRecord<byte[], byte[]> record(byte[] key, byte[] operationKey) {
    RecordHeaders headers = new RecordHeaders();
    if (operationKey != null) {
      headers.add(CourierHeaders.ID, operationKey);
    }
    return new ConsumerRecord<>(
        "t",
        0,
        5,
        0L,
        TimestampType.CREATE_TIME,
        0,
        0,
        key,
        "{}".getBytes(StandardCharsets.UTF_8),
        headers,
        Optional.empty());
  }

  private Headers send(byte[] key, byte[] operationKey) throws Exception {
    handler.handle(record(key, operationKey));
    return received.get(received.size() - 1);
  }

  private static byte[] decoded(Headers h) {
    String value = h.getFirst(HttpKeys.KEY);
    return HttpKeys.BASE64URL.equals(h.getFirst(HttpKeys.KEY_ENCODING))
        ? Base64.getUrlDecoder().decode(value)
        : value.getBytes(StandardCharsets.US_ASCII);
  }

  @Test
  void theEndpointContinuesTheRecordsTraceOrTheAttemptsSpan() throws Exception {
    String traceparent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
    ConsumerRecord<byte[], byte[]> record = record(bytes("acc-17"), bytes("op-1"));
    record.headers().add(CourierHeaders.TRACEPARENT, bytes(traceparent));
    handler.handle(record);
    assertThat(received.get(0).get("traceparent"))
        .as("untraced worker: the record's own context, as it came")
        .containsExactly(traceparent);

    SpanContext attempt =
        SpanContext.create(
            "0af7651916cd43dd8448eb211c80319c",
            "00f067aa0ba902b7",
            TraceFlags.getSampled(),
            TraceState.getDefault());
    try (Scope ignored = Span.wrap(attempt).makeCurrent()) {
      handler.handle(record);
    }
    assertThat(received.get(1).get("traceparent"))
        .as("traced worker: the attempt's span, one header")
        .containsExactly("00-0af7651916cd43dd8448eb211c80319c-00f067aa0ba902b7-01");
  }

  @Test
  void aPlainKeyArrivesAsItIs() throws Exception {
    Headers h = send(bytes("acc-17"), bytes("op-1"));
    assertThat(h.getFirst(HttpKeys.KEY)).isEqualTo("acc-17");
    assertThat(h.getFirst(HttpKeys.KEY_ENCODING)).isNull();
    assertThat(h.getFirst(HttpKeys.IDEMPOTENCY_KEY)).isEqualTo("op-1");
    assertThat(h.getFirst("Courier-Offset")).isEqualTo("5");
  }

  @Test
  void binaryBeyondLatin1LatinAndEmptyKeysArriveEncodedAndDecodeToTheirBytes() throws Exception {
    byte[][] keys = {
      {0, 1, 2, (byte) 0xff, (byte) 0x80}, // an Avro key
      bytes("北京"),
      bytes("café"),
      new byte[0],
      bytes("two words"),
    };
    for (byte[] key : keys) {
      Headers h = send(key, bytes("op"));
      assertThat(h.getFirst(HttpKeys.KEY_ENCODING)).isEqualTo(HttpKeys.BASE64URL);
      assertThat(decoded(h)).containsExactly(key);
    }
  }

  @Test
  void operationKeysBeyondAsciiGetAStableHeaderSafeIdempotencyKey() throws Exception {
    String first = send(bytes("a"), bytes("订单-42")).getFirst(HttpKeys.IDEMPOTENCY_KEY);
    String again = send(bytes("a"), bytes("订单-42")).getFirst(HttpKeys.IDEMPOTENCY_KEY);
    String other = send(bytes("a"), bytes("订单-43")).getFirst(HttpKeys.IDEMPOTENCY_KEY);
    assertThat(first).startsWith("b64:").isEqualTo(again).isNotEqualTo(other);
    assertThat(Base64.getUrlDecoder().decode(first.substring(4))).isEqualTo(bytes("订单-42"));
    // A plain key that looks encoded is encoded too, so no two keys share a value.
    assertThat(send(bytes("a"), bytes("b64:x")).getFirst(HttpKeys.IDEMPOTENCY_KEY))
        .isEqualTo("b64:" + HttpKeys.base64url(bytes("b64:x")));
    assertThat(send(null, null).getFirst(HttpKeys.IDEMPOTENCY_KEY)).isNull();
    assertThat(received.get(received.size() - 1).getFirst(HttpKeys.KEY)).isNull();
  }

  @Test
  void statusesMapToTransientAndPermanentFailures() {
    statuses.add(503);
    assertThatThrownBy(() -> handler.handle(record(bytes("k"), bytes("op"))))
        .isInstanceOf(HttpRecordHandler.Unavailable.class)
        .hasMessageContaining("HTTP 503");
    statuses.add(422);
    assertThatThrownBy(() -> handler.handle(record(bytes("k"), bytes("op"))))
        .isInstanceOf(HttpRecordHandler.Refused.class)
        .hasMessageContaining("HTTP 422");
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
