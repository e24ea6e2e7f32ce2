package dev.courier.schema.subject;

import org.apache.avro.Schema;

/** {@code <topic>-<record full name>}: several record types per topic, each with its lineage. */
public final class TopicRecordNameStrategy implements SubjectNameStrategy {
  @Override
  public String subjectName(String topic, boolean isKey, Schema schema) {
    return topic + "-" + SubjectNames.recordName(schema);
  }
}
