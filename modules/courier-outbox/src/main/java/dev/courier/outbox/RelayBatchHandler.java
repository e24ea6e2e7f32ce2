package dev.courier.outbox;

import dev.courier.core.CourierHeaders;
import dev.courier.core.CrashPoints;
import dev.courier.outbox.internal.RowRouter;
import io.debezium.engine.DebeziumEngine;
import io.debezium.engine.RecordChangeEvent;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
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
 */
final class RelayBatchHandler
    implements DebeziumEngine.ChangeConsumer<RecordChangeEvent<SourceRecord>> {

  private static final Logger LOG = LoggerFactory.getLogger(RelayBatchHandler.class);
  private static final Duration RESEND_PAUSE = Duration.ofMillis(500);

  private final Producer<byte[], byte[]> producer;
  private final RowRouter router;
  private final OutboxRelayConfig config;
  private final OutboxMetrics metrics;
  private final Clock clock;

  RelayBatchHandler(
      Producer<byte[], byte[]> producer,
      RowRouter router,
      OutboxRelayConfig config,
      OutboxMetrics metrics,
      Clock clock) {
    this.producer = producer;
    this.router = router;
    this.config = config;
    this.metrics = metrics;
    this.clock = clock;
  }

  @Override
  public void handleBatch(
      List<RecordChangeEvent<SourceRecord>> changes,
      DebeziumEngine.RecordCommitter<RecordChangeEvent<SourceRecord>> committer)
      throws InterruptedException {
    List<RowRouter.Publish> publish = new ArrayList<>();
    long received = clock.millis();
    for (RecordChangeEvent<SourceRecord> change : changes) {
      RowRouter.Routed routed = router.route(change.record());
      if (routed instanceof RowRouter.Publish p) {
        publish.add(p);
        metrics.commitToCapture.record(Duration.ofMillis(Math.max(0, received - p.commitMillis())));
      } else if (routed instanceof RowRouter.Invalid invalid) {
        deadLetterOrFail(invalid);
      }
    }
    OutboxRelay.BEFORE_KAFKA_SEND.reach();
    sendAll(publish);
    CrashPoints.AFTER_KAFKA_SEND_BEFORE_SOURCE_OFFSET_COMMIT.reach();
    for (RecordChangeEvent<SourceRecord> change : changes) {
      committer.markProcessed(change);
    }
    committer.markBatchFinished();
    metrics.batches.increment();
  }

  /**
   * Sends in order and waits for every acknowledgement. Records Kafka could not take in time are
   * sent again, in their order, until it can: the relay waits out a broker outage.
   */
  private void sendAll(List<RowRouter.Publish> events) throws InterruptedException {
    List<RowRouter.Publish> pending = events;
    while (!pending.isEmpty()) {
      List<Future<RecordMetadata>> acks = new ArrayList<>(pending.size());
      for (RowRouter.Publish event : pending) {
        try {
          acks.add(producer.send(event.record()));
        } catch (RetriableException e) {
          // No metadata within max.block.ms: Kafka is away. This one and the rest go again later.
          break;
        }
      }
      List<RowRouter.Publish> again = new ArrayList<>();
      for (int i = 0; i < pending.size(); i++) {
        RowRouter.Publish event = pending.get(i);
        if (i >= acks.size()) {
          again.add(event);
          continue;
        }
        try {
          acks.get(i).get();
          metrics.relayed.increment();
          metrics.commitToAck.record(
              Duration.ofMillis(Math.max(0, clock.millis() - event.commitMillis())));
          metrics.lastEventMillis.set(event.commitMillis());
        } catch (ExecutionException e) {
          Throwable cause = e.getCause();
          if (cause instanceof RecordTooLargeException) {
            deadLetterOrFail(
                new RowRouter.Invalid(
                    "payload of "
                        + event.record().value().length
                        + " bytes is over the size Kafka accepts: "
                        + cause.getMessage(),
                    event.eventId(),
                    event.record().value()));
          } else if (cause instanceof RetriableException) {
            again.add(event);
          } else {
            throw new IllegalStateException(
                "publishing event " + event.eventId() + " failed: " + cause, cause);
          }
        }
      }
      if (!again.isEmpty()) {
        LOG.warn("Kafka did not acknowledge {} events in time; sending them again", again.size());
        metrics.resent.increment(again.size());
        Thread.sleep(RESEND_PAUSE.toMillis()); // an outage: give the broker a moment, then resend
      }
      pending = again;
    }
  }

  private void deadLetterOrFail(RowRouter.Invalid invalid) {
    if (config.getString(OutboxRelayConfig.INVALID_ROW_POLICY).equals("fail")) {
      throw new IllegalStateException(
          "outbox row "
              + invalid.eventId()
              + " cannot be published: "
              + invalid.reason()
              + " ("
              + OutboxRelayConfig.INVALID_ROW_POLICY
              + "=fail; nothing was skipped)");
    }
    ProducerRecord<byte[], byte[]> dead =
        new ProducerRecord<>(
            config.deadLetterTopic(),
            invalid.eventId().getBytes(StandardCharsets.UTF_8),
            invalid.rawRow());
    dead.headers().add(CourierHeaders.ID, invalid.eventId().getBytes(StandardCharsets.UTF_8));
    dead.headers().add(CourierHeaders.REASON, invalid.reason().getBytes(StandardCharsets.UTF_8));
    try {
      producer.send(dead).get();
    } catch (ExecutionException | InterruptedException e) {
      if (e instanceof InterruptedException) {
        Thread.currentThread().interrupt();
      }
      throw new IllegalStateException("could not dead-letter outbox row " + invalid.eventId(), e);
    }
    metrics.deadLettered.increment();
    LOG.warn(
        "outbox row {} dead-lettered to {}: {}",
        invalid.eventId(),
        config.deadLetterTopic(),
        invalid.reason());
  }
}
