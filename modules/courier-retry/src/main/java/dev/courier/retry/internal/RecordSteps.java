package dev.courier.retry.internal;

import dev.courier.core.CourierHeaders;
import dev.courier.retry.RecordHandler;
import dev.courier.retry.RetryTopics;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.serialization.Deserializer;

/**
 * What each record the ladder reads needs ({@link StepDecider}), and for a call its work: the
 * handler on the record as first written (original topic, partition, offset and timestamp), typed
 * here at the edge; a record that cannot be typed is {@link RecordStep.Unreadable}, never a call.
 */
final class RecordSteps<K, V> {

  private final RetryTopics topics;
  private final Deserializer<K> keys;
  private final Deserializer<V> values;
  private final RecordHandler<K, V> handler;
  private final StepDecider decider;
  private final Outcomes outcomes;
  private final LadderLoop.Settings settings;

  /** Key order ({@code retry.ordering=key}), or null. */
  private final KeyOrder order;

  RecordSteps(
      RetryTopics topics,
      Deserializer<K> keys,
      Deserializer<V> values,
      RecordHandler<K, V> handler,
      StepDecider decider,
      Outcomes outcomes,
      LadderLoop.Settings settings,
      KeyOrder order) {
    this.topics = topics;
    this.keys = keys;
    this.values = values;
    this.handler = handler;
    this.decider = decider;
    this.outcomes = outcomes;
    this.settings = settings;
    this.order = order;
  }

  /**
   * Decides what a record needs and, for a call, adds its work; dead letters are not sent here but
   * when the record's turn comes, so offsets and effects stay in record order. With {@code admit},
   * key order may hold the record behind its key first.
   */
  RecordStep prepare(
      ConsumerRecord<byte[], byte[]> record,
      Instant now,
      List<HandlerCalls.Work> works,
      boolean admit) {
    if (admit) {
      Optional<RecordStep> held = order.admit(record);
      if (held.isPresent()) {
        return held.get();
      }
    }
    int tier = topics.tierOf(record.topic());
    if (tier > 0 && topics.shared(record.topic()) && !ours(record)) {
      return new RecordStep.OtherGroup();
    }
    LadderRead read =
        LadderState.read(record, tier, settings.operationKeyHeader(), settings.deadlineHeader());
    if (order != null && tier > 0 && read instanceof LadderState state) {
      Optional<RecordStep> held = order.admitTier(record, state);
      if (held.isPresent()) {
        return held.get();
      }
    }
    RecordStep step = decider.decide(record, read, tier, now);
    if (step instanceof RecordStep.Wait wait && wait.forBudget()) {
      outcomes.budgetWait();
    }
    if (!(step instanceof RecordStep.Call call)) {
      return step;
    }
    if (tier > 0) {
      call.state().due().ifPresent(d -> outcomes.late(Duration.between(d, now)));
    }
    ConsumerRecord<K, V> typed;
    try {
      typed = deserialize(record, call.state());
    } catch (RuntimeException e) {
      return new RecordStep.Unreadable(call.state(), tier, e);
    }
    works.add(outcomes.tracing().around(record, call.state(), tier, () -> handler.handle(typed)));
    return call;
  }

  /** Whether a record of a shared tier was put there by this group (every hop names its group). */
  private boolean ours(ConsumerRecord<byte[], byte[]> record) {
    Header group = record.headers().lastHeader(CourierHeaders.GROUP);
    return group == null
        || topics.group().equals(new String(group.value(), StandardCharsets.UTF_8));
  }

  private ConsumerRecord<K, V> deserialize(ConsumerRecord<byte[], byte[]> r, LadderState state) {
    K key = keys.deserialize(state.originalTopic(), r.headers(), r.key());
    V value = values.deserialize(state.originalTopic(), r.headers(), r.value());
    return new ConsumerRecord<>(
        state.originalTopic(),
        state.originalPartition(),
        state.originalOffset(),
        state.originalTimestamp(),
        TimestampType.CREATE_TIME,
        r.serializedKeySize(),
        r.serializedValueSize(),
        key,
        value,
        r.headers(),
        Optional.empty());
  }
}
