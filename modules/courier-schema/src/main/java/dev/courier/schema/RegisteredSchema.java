package dev.courier.schema;

import java.util.Objects;
import org.apache.avro.Schema;

/** A schema as registered under a subject: its version there and its global id. */
public record RegisteredSchema(String subject, int version, int id, Schema schema) {
  public RegisteredSchema {
    Objects.requireNonNull(subject, "subject");
    Objects.requireNonNull(schema, "schema");
    if (version < 1) {
      throw new IllegalArgumentException("version must be 1 or more, was " + version);
    }
    if (id < 0) {
      throw new IllegalArgumentException("id must not be negative, was " + id);
    }
  }
}
