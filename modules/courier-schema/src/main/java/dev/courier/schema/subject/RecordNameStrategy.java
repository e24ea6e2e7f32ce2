package dev.courier.schema.subject;

import org.apache.avro.Schema;

/** The record's full name: one lineage per record type, across topics. */
public final class RecordNameStrategy implements SubjectNameStrategy {
  @Override
  public String subjectName(String topic, boolean isKey, Schema schema) {
    return SubjectNames.recordName(schema);
  }
}
