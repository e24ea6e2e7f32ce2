package dev.courier.schema.subject;

import org.apache.avro.Schema;

/** {@code <topic>-key} / {@code <topic>-value}: one schema lineage per topic (the default). */
public final class TopicNameStrategy implements SubjectNameStrategy {
  @Override
  public String subjectName(String topic, boolean isKey, Schema schema) {
    return topic + (isKey ? "-key" : "-value");
  }
}
