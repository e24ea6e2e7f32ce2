package dev.courier.schema;

import dev.courier.core.TransientAware;
import org.apache.kafka.common.errors.SerializationException;

/**
 * Bytes that cannot become an Avro record. Kafka's consumer wraps it in a {@code
 * RecordDeserializationException} that adds the partition and offset; this exception adds the
 * topic, the schema id (when the header was readable) and what exactly was wrong.
 */
public class AvroDeserializationException extends SerializationException implements TransientAware {
  private static final long serialVersionUID = 1L;

  /** What was wrong with the bytes. */
  public enum Reason {
    /** The first byte is not the Confluent wire format's magic byte 0. */
    WRONG_MAGIC_BYTE(true),
    /** Fewer bytes than the header, or than the writer schema needs. */
    TRUNCATED(true),
    /**
     * Bytes that are no encoding of the writer schema: a union branch or enum symbol the schema
     * does not have, a negative length, a number longer than its type allows.
     */
    MALFORMED(true),
    /** The registry has no schema with the id in the header. */
    UNKNOWN_SCHEMA_ID(true),
    /** The reader schema cannot read what the writer schema wrote. */
    INCOMPATIBLE_READER(true),
    /** The registry could not be reached or failed; reading again later may work. */
    REGISTRY_UNAVAILABLE(false);

    private final boolean permanent;

    Reason(boolean permanent) {
      this.permanent = permanent;
    }

    /** Whether retrying the same bytes can never succeed. */
    public boolean permanent() {
      return permanent;
    }
  }

  private final Reason reason;
  private final String topic;
  private final int schemaId;

  public AvroDeserializationException(
      Reason reason, String topic, int schemaId, String detail, Throwable cause) {
    super(
        "cannot deserialize Avro data of topic "
            + topic
            + (schemaId >= 0 ? " (schema id " + schemaId + ")" : "")
            + ": "
            + reason
            + ": "
            + detail,
        cause);
    this.reason = reason;
    this.topic = topic;
    this.schemaId = schemaId;
  }

  public Reason reason() {
    return reason;
  }

  public String topic() {
    return topic;
  }

  /** The schema id from the header, or -1 when the header itself was unreadable. */
  public int schemaId() {
    return schemaId;
  }

  /** A registry outage is not the record's fault: the retry ladder retries it. */
  @Override
  public boolean isTransient() {
    return !reason.permanent();
  }
}
