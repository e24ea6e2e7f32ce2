package dev.courier.outbox.internal;

import dev.courier.core.CourierHeaders;
import dev.courier.core.CrashPoints;
import dev.courier.core.internal.Traces;
import dev.courier.outbox.InvalidRowPolicy;
import dev.courier.outbox.OutboxRelay;
import dev.courier.outbox.OutboxRelayConfig;
import dev.courier.outbox.OutboxSkips;
import io.debezium.engine.DebeziumEngine;
import io.debezium.engine.RecordChangeEvent;
import io.opentelemetry.context.Scope;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.connect.source.SourceRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes one batch of captured changes and acknowledges it to Debezium only when Kafka has
 * acknowledged every record of it: nothing committed can be lost, and a crash in between re-sends
 * events with the ids they had.
 *
 * <p>When a record fails retriably (a leader gone, Kafka away), that record and every later one of
 * the batch are sent again, in order: a later record of the same key never ends up before it. A
 * record Kafka refuses for good (too large, a topic name Kafka does not allow, any other
 * non-retriable error) follows {@code outbox.invalid.row.policy}.
 */
public final class RelayBatchHandler
    implements DebeziumEngine.ChangeConsumer<RecordChangeEvent<SourceRecord>> {

  private static final Logger LOG = LoggerFactory.getLogger(RelayBatchHandler.class);
  private static final Duration RESEND_PAUSE = Duration.ofMillis(500);

  private final Producer<byte[], byte[]> producer;
  private final RowRouter router;
  private final OutboxRelayConfig config;
  private final OutboxMetrics metrics;
  private final DeadLetters deadLetters;
  private final Clock clock;
  private final Leadership leadership;
  private final Duration lease;
  private final boolean stopsAtRefusal;
  private final TopicLimits limits;
  private final RelaySpans spans;

  /** When the batch now waiting for Kafka started waiting, or 0 when none waits. */
  private volatile long waitingSince;

  private volatile long lastAckMillis;
  private volatile String lastSendFailure;

  /** Events operators skipped ({@link SkippedEvents}), by event id, as of the engine's start. */
  private volatile Map<String, OutboxSkips.Skip> skips = Map.of();

  /** The start whose first batch is still to come, or null. */
  private volatile StartPhases starting;

  public RelayBatchHandler(
      Producer<byte[], byte[]> producer,
      RowRouter router,
      OutboxRelayConfig config,
      OutboxMetrics metrics,
      Clock clock,
      Leadership leadership,
      Traces traces) {
    this.producer = producer;
    this.spans = new RelaySpans(traces);
    this.router = router;
    this.config = config;
    this.metrics = metrics;
    this.clock = clock;
    this.leadership = leadership;
    this.lease = Duration.ofMillis(config.getLong(OutboxRelayConfig.LEADER_LEASE_MS));
    this.stopsAtRefusal = config.invalidRowPolicy() == InvalidRowPolicy.FAIL;
    this.limits = new TopicLimits(config);
    this.deadLetters = new DeadLetters(producer, config, metrics, leadership, this::fence);
  }

  @Override
  public void handleBatch(
      List<RecordChangeEvent<SourceRecord>> changes,
      DebeziumEngine.RecordCommitter<RecordChangeEvent<SourceRecord>> committer)
      throws InterruptedException {
    fence("publish", -1);
    // The term the batch is published in: from here on every fence asks for it, so nothing of
    // this batch is sent once a newer term began, even one this relay itself leads again.
    long term = leadership.incarnation();
    fence("publish", term);
    List<RowRouter.Publish> publish = new ArrayList<>();
    long received = clock.millis();
    byte[] relay = leadership.header();
    spans.begin();
    for (RecordChangeEvent<SourceRecord> change : changes) {
      RowRouter.Routed routed = router.route(change.record());
      RowRouter.Row row = rowOf(routed);
      OutboxSkips.Skip skip = row == null ? null : skips.get(row.eventId());
      if (skip != null) {
        deadLetters.skipped(row, skip);
      } else if (routed instanceof RowRouter.Publish p) {
        p.record().headers().add(CourierHeaders.RELAY, relay);
        spans.start(p, relay);
        publish.add(p);
        metrics.commitToCapture.record(Duration.ofMillis(Math.max(0, received - p.commitMillis())));
      } else if (routed instanceof RowRouter.Invalid invalid) {
        deadLetters.deadLetterOrFail(invalid);
      }
    }
    OutboxRelay.BEFORE_KAFKA_SEND.reach();
    sendAll(publish, term);
    CrashPoints.AFTER_KAFKA_SEND_BEFORE_SOURCE_OFFSET_COMMIT.reach();
    // A position stored after another relay took over could move the slot past its events.
    fence("acknowledge", term);
    for (RecordChangeEvent<SourceRecord> change : changes) {
      committer.markProcessed(change);
    }
    committer.markBatchFinished();
    metrics.batches.increment();
    StartPhases start = starting;
    if (start != null) {
      starting = null;
      start
          .finish("first change")
          .ifPresent(
              took -> {
                metrics.start.record(took);
                LOG.info(
                    "first batch ({} change{}) relayed {}",
                    changes.size(),
                    changes.size() == 1 ? "" : "s",
                    start.describe());
              });
    }
  }

  /** The skips the engine about to start passes ({@link SkippedEvents#load}). */
  public void skips(Map<String, OutboxSkips.Skip> skips) {
    this.skips = Map.copyOf(skips);
  }

  /** The next batch relayed ends this start: its phases are logged and timed. */
  public void reportStart(StartPhases start) {
    this.starting = start;
  }

  /**
   * Goes on only while this relay leads. A lapsed lease may be a renewal in flight or PostgreSQL
   * briefly away, so it waits up to one lease for it before giving up.
   */
  void fence(String what) throws InterruptedException {
    fence(what, -1);
  }

  /**
   * As {@link #fence(String)}, in term {@code term} ({@code -1}: any): a batch begun in an earlier
   * term stops, even when this relay leads again, since another may have led in between.
   */
  void fence(String what, long term) throws InterruptedException {
    if (!leadership.awaitValid(lease, term)) {
      throw new LeadershipLost(
          "no longer the leader of slot "
              + config.getString(OutboxRelayConfig.SLOT_NAME)
              + " in incarnation "
              + (term < 0 ? leadership.incarnation() : term)
              + (term >= 0 && leadership.incarnation() != term
                  ? " (incarnation " + leadership.incarnation() + " began since)"
                  : "")
              + ": will not "
              + what
              + " this batch; the leader re-sends it");
    }
  }

  /**
   * How long events have waited for Kafka's acknowledgement without any arriving (zero when none
   * waits), and what the last failed send said.
   */
  public Duration waitingForKafka() {
    long since = waitingSince;
    if (since == 0) {
      return Duration.ZERO;
    }
    return Duration.ofMillis(Math.max(0, clock.millis() - Math.max(since, lastAckMillis)));
  }

  public String lastSendFailure() {
    return lastSendFailure;
  }

  /**
   * Sends in order and waits for every acknowledgement. From the first record Kafka could not take
   * in time, that record and every later one are sent again, in order, until Kafka takes them: the
   * relay waits out a broker outage and keeps each key's order.
   */
  private void sendAll(List<RowRouter.Publish> events, long term) throws InterruptedException {
    List<RowRouter.Publish> pending = events;
    waitingSince = clock.millis();
    try {
      while (!pending.isEmpty()) {
        List<Future<RecordMetadata>> acks = new ArrayList<>(pending.size());
        for (RowRouter.Publish event : pending) {
          // Each record, not each batch: a send may block (metadata, a full buffer) for up to
          // max.block.ms, which is kept within half a lease, and the lease may lapse meanwhile.
          if (!leadership.validIn(term)) {
            fence("send", term);
          }
          Future<RecordMetadata> ack = send(event);
          acks.add(ack);
          // Under 'fail' nothing after a refused row may reach Kafka before the stop, or it would
          // come before the row once the cause is fixed. The producer refuses a record too large
          // for max.request.size, for a topic name Kafka does not allow or may not be written
          // while send() runs: no later record is sent then.
          if (stopsAtRefusal && refusedAtOnce(ack)) {
            break;
          }
        }
        int resendFrom = -1;
        for (int i = 0; i < acks.size() && resendFrom < 0; i++) {
          RowRouter.Publish event = pending.get(i);
          try {
            RecordMetadata metadata =
                acks.get(i)
                    .get(
                        config.getInt(OutboxRelayConfig.DELIVERY_TIMEOUT_MS) + 5_000L,
                        TimeUnit.MILLISECONDS);
            acknowledged(event);
            spans.acknowledged(event, metadata);
          } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof RetriableException) {
              resendFrom = i;
              lastSendFailure = event.record().topic() + ": " + cause;
            } else {
              spans.refused(event, cause);
              deadLetters.refused(event, cause);
            }
          } catch (java.util.concurrent.TimeoutException e) {
            resendFrom = i;
            lastSendFailure = event.record().topic() + ": no answer from Kafka";
          }
        }
        if (resendFrom < 0) {
          return;
        }
        List<RowRouter.Publish> again = List.copyOf(pending.subList(resendFrom, pending.size()));
        LOG.warn(
            "Kafka did not take event {} ({}); sending it and the {} after it again, in order",
            again.get(0).eventId(),
            lastSendFailure,
            again.size() - 1);
        // An outage or a leader election: give the cluster a moment before the resend.
        Thread.sleep(RESEND_PAUSE.toMillis());
        // A leader cut off from Kafka and PostgreSQL may have been replaced meanwhile: its copies,
        // landing once the network heals, would follow the new leader's newer events of a key.
        fence("send again", term);
        metrics.resent.increment(again.size());
        pending = again;
      }
    } finally {
      waitingSince = 0;
    }
  }

  /**
   * Sends; under 'fail', a record the topic's limit will certainly refuse is refused here instead,
   * before the records after it are sent ({@link TopicLimits}).
   */
  private Future<RecordMetadata> send(RowRouter.Publish event) {
    if (stopsAtRefusal) {
      OptionalInt limit = limits.exceeded(event.record());
      if (limit.isPresent()) {
        return CompletableFuture.failedFuture(
            new RecordTooLargeException(
                "at least "
                    + TopicLimits.smallestEncoding(event.record())
                    + " bytes, over the max.message.bytes ("
                    + limit.getAsInt()
                    + ") of topic "
                    + event.record().topic()
                    + ": the broker would refuse it"));
      }
    }
    try (Scope ignored = spans.sending(event)) {
      return producer.send(event.record());
    }
  }

  /** Gives up what the handler holds (the admin client of {@link TopicLimits}). */
  public void close() {
    limits.close();
  }

  private static RowRouter.Row rowOf(RowRouter.Routed routed) {
    if (routed instanceof RowRouter.Publish p) {
      return p.row();
    }
    return routed instanceof RowRouter.Invalid invalid ? invalid.row() : null;
  }

  private static boolean refusedAtOnce(Future<RecordMetadata> ack) {
    if (!ack.isDone()) {
      return false;
    }
    try {
      ack.get();
      return false;
    } catch (ExecutionException e) {
      return !(e.getCause() instanceof RetriableException);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  private void acknowledged(RowRouter.Publish event) {
    long now = clock.millis();
    lastAckMillis = now;
    metrics.relayed.increment();
    metrics.commitToAck.record(Duration.ofMillis(Math.max(0, now - event.commitMillis())));
    metrics.lastEventMillis.set(event.commitMillis());
  }
}
