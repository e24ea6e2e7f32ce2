package dev.courier.outbox.internal;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.util.Base64;

/**
 * The dead letter of an outbox row: what it was (event id, aggregate, type, content type, size) and
 * why it could not be published, with the payload (base64) only when the whole letter stays well
 * inside what Kafka takes. A payload too large for Kafka must not make its own dead letter too
 * large as well.
 */
public final class DeadLetterEnvelope {

  private static final ObjectMapper JSON = new ObjectMapper();

  /** Room for the envelope's other fields and the record's headers. */
  private static final int MARGIN = 16 * 1024;

  private DeadLetterEnvelope() {}

  public static byte[] of(RowRouter.Row row, String reason, int maxRequestSize) {
    ObjectNode e = JSON.createObjectNode();
    e.put("eventId", row.eventId());
    e.put("aggregateType", row.aggregateType());
    e.put("aggregateId", row.aggregateId());
    e.put("type", row.type());
    e.put("contentType", row.contentType());
    int size = row.payload() == null ? 0 : row.payload().length;
    e.put("size", size);
    e.put("reason", reason);
    long encoded = 4L * ((size + 2) / 3);
    if (row.payload() != null && encoded + MARGIN < maxRequestSize) {
      e.put("payload", Base64.getEncoder().encodeToString(row.payload()));
    } else if (row.payload() != null) {
      e.put(
          "payloadOmitted",
          size + " bytes do not fit in a dead letter (max.request.size " + maxRequestSize + ")");
    }
    return e.toString().getBytes(StandardCharsets.UTF_8);
  }
}
