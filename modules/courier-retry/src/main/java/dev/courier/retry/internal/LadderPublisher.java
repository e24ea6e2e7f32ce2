package dev.courier.retry.internal;

import dev.courier.core.CrashPoints;
import dev.courier.retry.RetryTopics;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.RecordMetadata;

/**
 * Owns the ladder's producer: forwards a failed record to its next tier or to the DLT, with the
 * failure headers of {@link Hop}, without waiting; {@link #awaitAcknowledged()} is what stands
 * between a forward and the commit of the original's offset.
 */
public final class LadderPublisher implements AutoCloseable {

  private final Producer<byte[], byte[]> producer;
  private final RetryTopics topics;
  private final String group;
  private final int messageMaxChars;
  private final boolean includeStack;
  private final List<Future<RecordMetadata>> forwards = new ArrayList<>();

  public LadderPublisher(
      Producer<byte[], byte[]> producer,
      RetryTopics topics,
      String group,
      int messageMaxChars,
      boolean includeStack) {
    this.producer = producer;
    this.topics = topics;
    this.group = group;
    this.messageMaxChars = messageMaxChars;
    this.includeStack = includeStack;
  }

  /** To tier {@code tier}, due when the failure says. */
  public void retry(
      ConsumerRecord<byte[], byte[]> record,
      LadderState state,
      int tier,
      Hop.Failure failure,
      Instant now) {
    send(record, state, topics.tier(tier), failure, now);
  }

  /** To the dead-letter topic. */
  public void deadLetter(
      ConsumerRecord<byte[], byte[]> record, LadderState state, Hop.Failure failure, Instant now) {
    send(record, state, topics.deadLetter(), failure, now);
  }

  private void send(
      ConsumerRecord<byte[], byte[]> record,
      LadderState state,
      String topic,
      Hop.Failure failure,
      Instant now) {
    forwards.add(
        producer.send(
            Hop.of(record, state, topic, group, failure, now, messageMaxChars, includeStack)));
  }

  /**
   * Every forward so far acknowledged, or an exception: no offset may then be committed, and the
   * records come again.
   */
  public void awaitAcknowledged() {
    try {
      for (Future<RecordMetadata> f : forwards) {
        f.get();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while forwarding to the ladder", e);
    } catch (ExecutionException e) {
      throw new IllegalStateException(
          "cannot forward to the ladder: " + e.getCause(), e.getCause());
    } finally {
      forwards.clear();
    }
    CrashPoints.AFTER_FORWARD_BEFORE_OFFSET_COMMIT.reach();
  }

  @Override
  public void close() {
    producer.close(Duration.ofSeconds(5));
  }
}
