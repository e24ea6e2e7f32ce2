package dev.courier.outbox;

import dev.courier.core.CourierHeaders;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.regex.Pattern;

/**
 * One event to publish, written to the outbox in the caller's transaction.
 *
 * @param eventId stable id (the caller's operation key as a UUID, or a random one); becomes Kafka
 *     header {@code id}, so consumers can drop re-sent copies
 * @param aggregateType routes the event to topic {@code <prefix>.<aggregateType>}
 * @param aggregateId the Kafka record key: events of one aggregate keep their order
 * @param eventType header {@code type}, e.g. {@code CreditRequested}
 * @param payload the value bytes (Avro in Confluent's wire format, or JSON)
 * @param contentType header {@code content-type}, e.g. {@code application/vnd.courier.avro} or
 *     {@code application/json}
 * @param headers extra headers (e.g. {@code traceparent}, {@code tenant})
 * @param deadline optional business deadline, header {@code courier.deadline} ({@link
 *     CourierHeaders#DEADLINE}), which the retry ladder enforces
 */
public record OutboxEvent(
    UUID eventId,
    String aggregateType,
    String aggregateId,
    String eventType,
    byte[] payload,
    String contentType,
    Map<String, String> headers,
    Optional<Instant> deadline) {

  /** Aggregate types become topic names: Kafka's legal topic characters only. */
  private static final Pattern TOPIC_PART = Pattern.compile("[a-zA-Z0-9._-]{1,200}");

  public static final String AVRO = "application/vnd.courier.avro";
  public static final String JSON = "application/json";

  public OutboxEvent {
    Objects.requireNonNull(eventId, "eventId must be set (the operation key, or a random UUID)");
    require(aggregateType, "aggregateType");
    if (!TOPIC_PART.matcher(aggregateType).matches()) {
      throw new IllegalArgumentException(
          "aggregateType '"
              + aggregateType
              + "' becomes part of a topic name: use letters, digits, '.', '_' or '-'");
    }
    require(aggregateId, "aggregateId");
    require(eventType, "eventType");
    Objects.requireNonNull(payload, "payload must not be null (use an empty array for no payload)");
    require(contentType, "contentType");
    headers = Map.copyOf(headers == null ? Map.of() : headers);
    for (String name : headers.keySet()) {
      if (name.equals(CourierHeaders.ID)
          || name.equals(CourierHeaders.TYPE)
          || name.equals(CourierHeaders.CONTENT_TYPE)
          || name.equals(CourierHeaders.DEADLINE)) {
        throw new IllegalArgumentException("header '" + name + "' is set by the outbox itself");
      }
    }
    deadline = deadline == null ? Optional.empty() : deadline;
    payload = payload.clone();
  }

  @Override
  public byte[] payload() {
    return payload.clone();
  }

  /** A JSON event; the event id is a name-based UUID of the operation key, so re-writes keep it. */
  public static Builder builder() {
    return new Builder();
  }

  /** The stable event id of an operation key (name-based UUID), so a retried write keeps its id. */
  public static UUID idFor(String operationKey) {
    return UUID.nameUUIDFromBytes(operationKey.getBytes(StandardCharsets.UTF_8));
  }

  private static void require(String value, String name) {
    if (value == null || value.isBlank()) {
      throw new IllegalArgumentException(name + " must not be empty");
    }
  }

  /** Builds an {@link OutboxEvent}; validation happens in {@link #build()}. */
  public static final class Builder {
    private UUID eventId;
    private String aggregateType;
    private String aggregateId;
    private String eventType;
    private byte[] payload;
    private String contentType = JSON;
    private final Map<String, String> headers = new LinkedHashMap<>();
    private Instant deadline;

    public Builder eventId(UUID eventId) {
      this.eventId = eventId;
      return this;
    }

    /** The event id derived from the caller's operation key. */
    public Builder operationKey(String operationKey) {
      return eventId(idFor(operationKey));
    }

    public Builder aggregate(String type, String id) {
      this.aggregateType = type;
      this.aggregateId = id;
      return this;
    }

    public Builder eventType(String eventType) {
      this.eventType = eventType;
      return this;
    }

    public Builder json(String json) {
      this.payload = json.getBytes(StandardCharsets.UTF_8);
      this.contentType = JSON;
      return this;
    }

    /** Avro bytes from Courier's (or Confluent's) serializer. */
    public Builder avro(byte[] wireFormat) {
      this.payload = wireFormat;
      this.contentType = AVRO;
      return this;
    }

    public Builder header(String name, String value) {
      headers.put(name, value);
      return this;
    }

    public Builder deadline(Instant deadline) {
      this.deadline = deadline;
      return this;
    }

    public OutboxEvent build() {
      return new OutboxEvent(
          eventId == null ? UUID.randomUUID() : eventId,
          aggregateType,
          aggregateId,
          eventType,
          payload,
          contentType,
          headers,
          Optional.ofNullable(deadline));
    }
  }
}
