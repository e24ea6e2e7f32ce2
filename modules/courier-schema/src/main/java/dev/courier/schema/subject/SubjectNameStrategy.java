package dev.courier.schema.subject;

import org.apache.avro.Schema;

/**
 * Names the registry subject of a record's key or value schema, as Confluent's strategies of the
 * same class names do ({@code key.subject.name.strategy}, {@code value.subject.name.strategy}).
 */
public interface SubjectNameStrategy {

  String subjectName(String topic, boolean isKey, Schema schema);
}
