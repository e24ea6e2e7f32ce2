package dev.courier.retry.internal;

import dev.courier.core.internal.KafkaConnection;
import dev.courier.core.internal.PollLoop;
import dev.courier.retry.RecordHandler;
import dev.courier.retry.RetryProgress;
import dev.courier.retry.RetryTopics;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.Deserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The ladder's poll loop: each poll, runs the held records that fell due, then handles each
 * partition's records in order until one must wait for its due time; the records before it go to
 * the handler thread as one run and are settled in order by the {@link RunSettler}.
 */
public final class LadderLoop<K, V> {

  private static final Logger LOG = LoggerFactory.getLogger(LadderLoop.class);

  /** What the loop needs that the ladder's settings decide. */
  public record Settings(
      String operationKeyHeader,
      String deadlineHeader,
      Duration pollTimeout,
      Duration commitInterval,
      Duration handlerTimeout) {}

  private final KafkaConsumer<byte[], byte[]> consumer;
  private final List<String> subscribed;
  private final RetryTopics topics;
  private final RecordSteps<K, V> recordSteps;
  private final UndeliveredForwards forwards;
  private final HandlerCalls calls;
  private final TierWaits waits;
  private final PartitionPauses pauses;
  private final Commits commits;
  private final RunSettler settler;
  private final LadderPublisher publisher;
  private final Outcomes outcomes;
  private final AutoCloseable depth;
  private final RetryMetrics metrics;
  private final LadderProgress progress;
  private final Shutdown shutdown;
  private final Clock clock;
  private final Settings settings;
  private final PollLoop loop;
  private final KafkaConnection connection;

  /** Calls start only while this member is known to be in its group. */
  private final MembershipProbe membership;

  /** Key order ({@code retry.ordering=key}), or null. */
  private final KeyOrder order;

  /** With key order, the runs of keys that drain; else null. */
  private final ReleasedRuns released;

  /**
   * How long a partition at a key-order bound is left unread before it is tried again, unless its
   * keys drain enough before ({@link PartitionPauses#holdAtBound}).
   */
  private static final Duration FULL_RECHECK = Duration.ofMillis(200);

  /** The parts {@link LadderSetup} made: clients, topics and meters. */
  public record Parts(
      String bootstrapServers,
      Duration requestTimeout,
      KafkaConsumer<byte[], byte[]> consumer,
      LadderPublisher publisher,
      AutoCloseable depth,
      List<String> subscribed,
      TierWaits waits,
      RetryMetrics metrics,
      Commits.Limits commitLimits,
      ChainStore chainStore,
      MembershipProbe membership) {}

  public LadderLoop(
      Parts parts,
      RetryTopics topics,
      Deserializer<K> keys,
      Deserializer<V> values,
      RecordHandler<K, V> handler,
      StepDecider decider,
      Outcomes outcomes,
      HandlerCalls calls,
      LadderProgress progress,
      Shutdown shutdown,
      Clock clock,
      Settings settings,
      KeyOrder order) {
    this.order = order;
    this.consumer = parts.consumer();
    this.subscribed = parts.subscribed();
    this.publisher = parts.publisher();
    this.depth = parts.depth();
    this.waits = parts.waits();
    this.metrics = parts.metrics();
    this.topics = topics;
    this.recordSteps =
        new RecordSteps<>(topics, keys, values, handler, decider, outcomes, settings, order);
    this.outcomes = outcomes;
    this.membership = parts.membership();
    this.calls = calls.gatedBy(membership.lease());
    this.progress = progress;
    this.shutdown = shutdown;
    this.clock = clock;
    this.settings = settings;
    this.pauses = new PartitionPauses(consumer, waits);
    this.forwards = new UndeliveredForwards(consumer, publisher, waits, pauses, order, clock);
    this.commits = new Commits(consumer, forwards, metrics, parts.commitLimits(), shutdown, clock);
    this.settler =
        new RunSettler(
            consumer,
            pauses,
            commits,
            outcomes,
            shutdown,
            settings.commitInterval(),
            settings.handlerTimeout(),
            clock);
    forwards.settledBy(settler);
    settler.membership(membership.lease(), () -> membership.maintain(consumer));
    this.released =
        order == null
            ? null
            : new ReleasedRuns(order, consumer, recordSteps, this.calls, settler, shutdown, clock);
    this.loop = new PollLoop(consumer, this::closeResources);
    this.connection = new KafkaConnection(parts.bootstrapServers(), parts.requestTimeout(), clock);
  }

  /**
   * Why the loop cannot do its work now (Kafka unreachable, a call stuck, a forward neither
   * delivered nor parked), or null. Every one that holds is named: a broker gone under a forward is
   * both, and the operator needs the record it left undone as much as the lost connection.
   */
  public String problem() {
    List<String> problems = new ArrayList<>(3);
    String kafka = connection.problem();
    if (kafka != null) {
      problems.add(kafka);
    }
    calls.stuck().ifPresent(problems::add);
    String lease = membership.lease().problem();
    if (lease != null) {
      problems.add(lease);
    }
    String forward = forwards.problem();
    if (forward != null) {
      problems.add(forward);
    }
    return problems.isEmpty() ? null : String.join("; and ", problems);
  }

  public List<String> subscribed() {
    return subscribed;
  }

  /** Runs until the condition holds after a poll, or {@link #close()}. */
  public void runUntil(Predicate<RetryProgress> done) {
    loop.run(
        () ->
            consumer.subscribe(
                subscribed,
                new LadderRebalance(
                    settler,
                    commits,
                    waits,
                    pauses,
                    order,
                    () -> consumer.groupMetadata().generationId())),
        () -> done.test(progress.snapshot()),
        this::pollOnce);
  }

  /** From any thread: the loop stops at its next step and closes what it owns. */
  public void close() {
    loop.close();
  }

  private void pollOnce() {
    settler.clearRevoked();
    // A member not known to be in its group (thawed, cut off) neither calls nor writes: what it
    // holds may be another member's by now (MembershipLease).
    boolean member = membership.lease().holds();
    // Records handled before the poll are committed (and counted) after it: it does not wait.
    boolean handled = false;
    if (member) {
      if (order != null) {
        order.catchUp();
      }
      handled = runDueHeld();
      if (order != null) {
        // After the held records: a head that just succeeded releases its key now, not after a
        // poll that may wait out the poll timeout.
        handled |= released.run();
        pauses.releaseWithRoom(order::roomAgain);
      }
    }
    pauses.releaseHeldBack(clock.instant());
    pauses.fetchAhead(clock.instant());
    // With key order a blocked key waits for its head's retry: the tiers get a poll of their own.
    boolean tiers =
        order != null && pauses.tiersTurn(clock.instant(), tp -> topics.tierOf(tp.topic()) == 0);
    ConsumerRecords<byte[], byte[]> records;
    try {
      records =
          consumer.poll(
              tiers || handled
                  ? Duration.ZERO
                  : waits.pollTimeout(settings.pollTimeout(), clock.instant()));
    } finally {
      if (tiers) {
        pauses.resumeAfterCall();
      }
    }
    connection.observe(consumer);
    membership.maintain(consumer);
    if (!membership.lease().holds()) {
      // Read again once it is known to be in its group, or by the partition's next owner.
      for (TopicPartition tp : records.partitions()) {
        consumer.seek(tp, records.records(tp).get(0).offset());
      }
      return;
    }
    settler.clearRevoked();
    for (TopicPartition tp : records.partitions()) {
      if (shutdown.requested()) {
        break;
      }
      if (waits.waiting(tp)) {
        waits.append(tp, records.records(tp)); // fetched ahead, behind what it holds
      } else {
        handlePartition(tp, records.records(tp));
      }
    }
    commits.commitAsync();
    updateGauges();
  }

  /**
   * Runs the held records whose wait is over, then resumes each partition that has none left, so a
   * hop is as late as the loop's wake-up and not a fetch round trip.
   *
   * @return whether any were due
   */
  private boolean runDueHeld() {
    Map<TopicPartition, List<ConsumerRecord<byte[], byte[]>>> due = waits.takeDue(clock.instant());
    due.forEach(
        (tp, held) -> {
          // Not settled (stopping, revoked): left paused, and a partition assigned again
          // comes back unpaused at its committed offset.
          if (handlePartition(tp, held)) {
            pauses.released(tp);
          }
        });
    return !due.isEmpty();
  }

  /**
   * Handles a partition's records in order until one must wait: the records before it go to the
   * handler thread as one run and are settled in order.
   *
   * @return true when every record is done or held for its due time; false when the loop stopped or
   *     the partition went away first
   */
  private boolean handlePartition(TopicPartition tp, List<ConsumerRecord<byte[], byte[]>> records) {
    int from = 0;
    while (from < records.size()) {
      // A revoked partition's records are its new owner's; a reassigned one is fetched again
      // from the committed offset.
      if (shutdown.requested() || settler.isRevoked(tp)) {
        return false;
      }
      Instant now = clock.instant();
      List<RecordStep> steps = new ArrayList<>();
      List<HandlerCalls.Work> works = new ArrayList<>();
      Instant waitUntil = null;
      boolean full = false;
      boolean ordered = order != null && topics.tierOf(tp.topic()) == 0;
      Map<ChainKey, Integer> lastCallOfKey = ordered ? new HashMap<>() : Map.of();
      int end = from;
      for (; end < records.size(); end++) {
        ConsumerRecord<byte[], byte[]> record = records.get(end);
        RecordStep step = recordSteps.prepare(record, now, works, ordered);
        if (step instanceof RecordStep.Wait wait) {
          waitUntil = wait.due();
          break;
        }
        if (step instanceof RecordStep.Full) {
          full = true;
          break;
        }
        steps.add(step);
        if (ordered && record.key() != null && step instanceof RecordStep.Call) {
          // A later record of the key in this run must not be called if this one fails.
          Integer earlier = lastCallOfKey.put(new ChainKey(record.key()), works.size() - 1);
          if (earlier != null) {
            HandlerCalls.stopRunOnFailure(works, earlier);
          }
        }
        if (ordered && step instanceof RecordStep.Unreadable) {
          end++; // its key may block: the records after it are prepared once it is settled
          break;
        }
        if (settings.commitInterval().isZero() && step instanceof RecordStep.Call) {
          // Committing every record promises that a kill repeats at most the one in flight: the
          // handler thread must not run ahead while the loop commits the one before.
          end++;
          break;
        }
      }
      Run run =
          new Run(
              tp,
              records.subList(from, end),
              steps,
              works.isEmpty() ? List.of() : calls.startAll(works),
              now);
      RunSettler.Settled settled = settler.settle(run);
      if (settled == RunSettler.Settled.NOT_DONE) {
        return false;
      }
      if (settled == RunSettler.Settled.BROKEN) {
        from += run.settled(); // a call timed out and took the rest of its run with it
        continue;
      }
      if (waitUntil != null) {
        waits.hold(tp, waitUntil, records.subList(end, records.size()));
        pauses.hold(tp);
        return true;
      }
      if (full) {
        // At a key-order bound: read again from here once keys drain (or from further back, where
        // a refused forward sent the partition while this run settled).
        consumer.seek(tp, Math.min(records.get(end).offset(), consumer.position(tp)));
        pauses.holdAtBound(tp, clock.instant().plus(FULL_RECHECK));
        return true;
      }
      from = end;
    }
    return true;
  }

  private void updateGauges() {
    if (order != null) {
      order.updateGauges(clock.instant());
    }
    long now = clock.millis();
    Map<Integer, Long> oldest = waits.oldestByTier(topics::tierOf);
    for (int t = 1; t <= topics.tiers(); t++) {
      Long since = oldest.get(t);
      metrics.tierAge(t, Duration.ofMillis(since == null ? 0 : now - since));
    }
  }

  /** On the loop's thread, once: commit what is done, then leave the group at once. */
  private void closeResources() {
    try {
      commits.commit();
    } catch (RuntimeException e) {
      LOG.warn("final commit failed: {}", e.toString());
    }
    membership.close(); // before the member leaves: an answer after it would not list it
    try {
      consumer.close(
          CloseOptions.groupMembershipOperation(CloseOptions.GroupMembershipOperation.LEAVE_GROUP)
              .withTimeout(Duration.ofSeconds(5)));
    } finally {
      publisher.close();
      calls.close();
      outcomes.tracing().abandon(null);
      if (order != null) {
        order.close();
      }
      try {
        depth.close();
      } catch (Exception e) {
        LOG.debug("DLT depth probe close: {}", e.toString());
      }
    }
  }
}
