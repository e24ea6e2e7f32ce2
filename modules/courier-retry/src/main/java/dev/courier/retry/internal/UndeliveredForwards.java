package dev.courier.retry.internal;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the ladder's commits wait for: its forwards acknowledged or parked. A partition whose
 * forward was neither is read again from that record after a hold-back that doubles while forwards
 * keep failing (1 s to 30 s), the rest of its run dropped, so nothing is committed past a record
 * that is neither done nor parked; the last such forward stays the loop's problem for a minute.
 */
final class UndeliveredForwards implements Commits.BeforeCommit {

  private static final Logger LOG = LoggerFactory.getLogger(UndeliveredForwards.class);
  private static final Duration FIRST_HOLD_BACK = Duration.ofSeconds(1);
  private static final Duration MAX_HOLD_BACK = Duration.ofSeconds(30);

  /** How many times a wait for every forward writes the key states it changed, at most. */
  private static final int STATE_ROUNDS = 3;

  /** How long a forward that could not be made keeps the loop unready after it happened. */
  private static final Duration PROBLEM_SHOWN = Duration.ofSeconds(60);

  private final KafkaConsumer<byte[], byte[]> consumer;
  private final LadderPublisher publisher;
  private final TierWaits waits;
  private final PartitionPauses pauses;

  /** Key order ({@code retry.ordering=key}), or null. */
  private final KeyOrder order;

  private final Clock clock;

  /** The settler needs the commits this feeds, so it comes after construction. */
  private RunSettler settler;

  private Duration holdBack = FIRST_HOLD_BACK;
  private volatile String undelivered;
  private volatile Instant undeliveredAt;

  UndeliveredForwards(
      KafkaConsumer<byte[], byte[]> consumer,
      LadderPublisher publisher,
      TierWaits waits,
      PartitionPauses pauses,
      KeyOrder order,
      Clock clock) {
    this.consumer = consumer;
    this.publisher = publisher;
    this.waits = waits;
    this.pauses = pauses;
    this.order = order;
    this.clock = clock;
  }

  void settledBy(RunSettler settler) {
    this.settler = settler;
  }

  /** The last forward neither delivered nor parked, within a minute of it, or null. */
  String problem() {
    Instant since = undeliveredAt;
    return since != null && clock.instant().isBefore(since.plus(PROBLEM_SHOWN))
        ? undelivered
        : null;
  }

  @Override
  public ForwardAcks awaitAll() {
    if (order == null) {
      return new ForwardAcks(readAgain(publisher.awaitAcknowledged()), Map.of());
    }
    order.writeChanged();
    List<Undelivered> undelivered = new ArrayList<>(readAgain(publisher.awaitAcknowledged()));
    // What the wait found changes keys' state, written now, not at the loop's next turn: a
    // revocation or a close comes next. Refused heads are resolved (their commits wait for their
    // keys' state), and a released record whose letter Kafka refused goes back in its key's line,
    // below what is committed: written only in memory, the revocation forgot it and the record
    // was never handled again (FaultCampaign seed 16 of 2026-12-08, bad-887, DLT writes denied
    // as the group rebalanced). Rounds are bounded: a state write Kafka refuses changes its key
    // again.
    for (int round = 0; round < STATE_ROUNDS; round++) {
      boolean resolved = order.resolveRefused();
      if (!resolved && !order.changedSinceWritten()) {
        break;
      }
      order.writeChanged();
      undelivered.addAll(readAgain(publisher.awaitAcknowledged()));
    }
    return new ForwardAcks(undelivered, order.unresolved());
  }

  @Override
  public ForwardAcks soFar() {
    Map<TopicPartition, Long> unwritten = order == null ? Map.of() : order.writeDue();
    ForwardAcks acks = publisher.acknowledgedSoFar();
    List<Undelivered> again = readAgain(acks.undelivered());
    if (order == null) {
      return new ForwardAcks(again, acks.unacknowledged());
    }
    // A refusal found now is resolved at the loop's next turn; its head's commit waits until then.
    Map<TopicPartition, Long> held = new HashMap<>(acks.unacknowledged());
    order.unresolved().forEach((tp, offset) -> held.merge(tp, offset, Math::min));
    unwritten.forEach((tp, offset) -> held.merge(tp, offset, Math::min));
    return new ForwardAcks(again, held);
  }

  @Override
  public void committed(Map<TopicPartition, OffsetAndMetadata> offsets) {
    if (order != null) {
      Map<TopicPartition, Long> at = new HashMap<>();
      offsets.forEach((tp, o) -> at.put(tp, o.offset()));
      order.committed(at);
    }
  }

  /**
   * Reads each undelivered forward's record again from its partition, after a hold-back; a released
   * record's (key order) goes back first in its key's line instead, as it lies below what is
   * committed.
   *
   * @return those read again: nothing past them may be committed
   */
  private List<Undelivered> readAgain(List<Undelivered> failed) {
    if (failed.isEmpty()) {
      holdBack = FIRST_HOLD_BACK;
      return failed;
    }
    Set<TopicPartition> owned = consumer.assignment();
    Map<TopicPartition, Long> from = new HashMap<>();
    List<Undelivered> again = new ArrayList<>();
    for (Undelivered u : failed) {
      LOG.warn("{}", u.describe());
      undelivered = u.describe();
      undeliveredAt = clock.instant();
      if (order != null && order.undelivered(u)) {
        continue;
      }
      again.add(u);
      if (owned.contains(u.source())) {
        from.merge(u.source(), u.offset(), Math::min);
        if (order != null) {
          order.readAgain(u.source(), u.offset());
        }
      }
    }
    from.forEach(
        (tp, offset) -> {
          settler.revoked(List.of(tp)); // the rest of this poll's run is read again
          waits.forget(List.of(tp));
          // Never forward: a refusal found now may be of a record sent before an earlier refusal
          // sent this partition back, and seeking to it would skip what lies between, held
          // uncommitted and never read again (FaultCampaign seed 14 of 2026-12-07, 22 records).
          consumer.seek(tp, Math.min(offset, consumer.position(tp)));
          pauses.holdBack(tp, clock.instant().plus(holdBack));
        });
    holdBack =
        holdBack.multipliedBy(2).compareTo(MAX_HOLD_BACK) > 0
            ? MAX_HOLD_BACK
            : holdBack.multipliedBy(2);
    return again;
  }
}
