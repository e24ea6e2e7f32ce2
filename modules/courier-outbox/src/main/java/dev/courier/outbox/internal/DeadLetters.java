package dev.courier.outbox.internal;

import dev.courier.core.CourierHeaders;
import dev.courier.outbox.InvalidRowPolicy;
import dev.courier.outbox.OutboxRelayConfig;
import dev.courier.outbox.OutboxSkips;
import dev.courier.outbox.RelayFault;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.RetriableException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Rows Kafka will never take, by {@code outbox.invalid.row.policy}. */
final class DeadLetters {

  private static final Logger LOG = LoggerFactory.getLogger(DeadLetters.class);

  private final Producer<byte[], byte[]> producer;
  private final OutboxRelayConfig config;
  private final OutboxMetrics metrics;
  private final Leadership leadership;
  private final Fence fence;

  /** Goes on only while this relay leads ({@link RelayBatchHandler#fence}). */
  interface Fence {
    void check(String what) throws InterruptedException;
  }

  DeadLetters(
      Producer<byte[], byte[]> producer,
      OutboxRelayConfig config,
      OutboxMetrics metrics,
      Leadership leadership,
      Fence fence) {
    this.producer = producer;
    this.config = config;
    this.metrics = metrics;
    this.leadership = leadership;
    this.fence = fence;
  }

  /** An event Kafka refused with a non-retriable error. */
  void refused(RowRouter.Publish event, Throwable cause) throws InterruptedException {
    ProducerRecord<byte[], byte[]> r = event.record();
    deadLetterOrFail(
        new RowRouter.Invalid("Kafka refused it for " + r.topic() + ": " + cause, event.row()));
    LOG.debug("refused record for {}: {}", r.topic(), cause.toString());
  }

  void deadLetterOrFail(RowRouter.Invalid invalid) throws InterruptedException {
    if (config.invalidRowPolicy() == InvalidRowPolicy.FAIL) {
      throw new RelayFault(
          "outbox row "
              + invalid.eventId()
              + " cannot be published: "
              + invalid.reason()
              + " ("
              + OutboxRelayConfig.INVALID_ROW_POLICY
              + "=fail: the relay stops here and publishes nothing after it. Fix the cause and"
              + " start the relay again, or dead-letter this one event with 'courier outbox skip "
              + invalid.eventId()
              + " --reason WHY' and start it again; deleting the row does not help, the slot"
              + " decodes it from the WAL again)");
    }
    deadLetter(invalid);
  }

  /** A row an operator skipped ({@link OutboxSkips}): dead-lettered whatever the policy. */
  void skipped(RowRouter.Row row, OutboxSkips.Skip skip) throws InterruptedException {
    deadLetter(new RowRouter.Invalid(skip.describe(), row));
  }

  private void deadLetter(RowRouter.Invalid invalid) throws InterruptedException {
    ProducerRecord<byte[], byte[]> dead =
        new ProducerRecord<>(
            config.deadLetterTopic(),
            invalid.eventId().getBytes(StandardCharsets.UTF_8),
            DeadLetterEnvelope.of(invalid.row(), invalid.reason(), maxRequestSize()));
    dead.headers().add(CourierHeaders.ID, invalid.eventId().getBytes(StandardCharsets.UTF_8));
    dead.headers().add(CourierHeaders.REASON, invalid.reason().getBytes(StandardCharsets.UTF_8));
    dead.headers().add(CourierHeaders.RELAY, leadership.header());
    // The dead letter stays in the writer's trace.
    TraceColumn.parse(invalid.row().traceContext())
        .forEach((name, value) -> dead.headers().add(name, value.getBytes(StandardCharsets.UTF_8)));
    send(dead, invalid);
    metrics.deadLettered.increment();
    LOG.warn(
        "outbox row {} dead-lettered to {}: {}",
        invalid.eventId(),
        config.deadLetterTopic(),
        invalid.reason());
  }

  /**
   * The dead letter must land; Kafka being away only delays it, and only while this relay leads (a
   * step-down's interrupt ends it as the batch's sends end: the next leader sends it).
   */
  private void send(ProducerRecord<byte[], byte[]> dead, RowRouter.Invalid invalid)
      throws InterruptedException {
    while (true) {
      fence.check("dead-letter outbox row " + invalid.eventId() + " of");
      try {
        producer.send(dead).get();
        return;
      } catch (ExecutionException e) {
        if (!(e.getCause() instanceof RetriableException)) {
          throw new RelayFault(
              "outbox row "
                  + invalid.eventId()
                  + " cannot be dead-lettered to "
                  + config.deadLetterTopic()
                  + ": "
                  + e.getCause());
        }
        LOG.warn(
            "dead letter of {} not taken yet ({}); again",
            invalid.eventId(),
            e.getCause().toString());
      }
    }
  }

  private int maxRequestSize() {
    Object size = config.clients().producer().get("max.request.size");
    return size == null ? 1_048_576 : Integer.parseInt(String.valueOf(size));
  }
}
