/**
 * Subject name strategies with Confluent's names and results ({@link
 * dev.courier.schema.subject.TopicNameStrategy}, {@link
 * dev.courier.schema.subject.RecordNameStrategy}, {@link
 * dev.courier.schema.subject.TopicRecordNameStrategy}).
 */
package dev.courier.schema.subject;
