package dev.courier.retry.internal;

import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;

/**
 * Key order's released records: those that waited behind keys that drain go to the handler, each
 * key's in order as a run of its own, all runs at once so the handler thread goes from one key to
 * the next without waiting for the loop. The first of a key's calls that fails for a retry blocks
 * its key again, the rest of that key's run does not start and waits on, and the other keys go on.
 */
final class ReleasedRuns {

  private final KeyOrder order;
  private final KafkaConsumer<byte[], byte[]> consumer;
  private final RecordSteps<?, ?> recordSteps;
  private final HandlerCalls calls;
  private final RunSettler settler;
  private final Shutdown shutdown;
  private final Clock clock;

  ReleasedRuns(
      KeyOrder order,
      KafkaConsumer<byte[], byte[]> consumer,
      RecordSteps<?, ?> recordSteps,
      HandlerCalls calls,
      RunSettler settler,
      Shutdown shutdown,
      Clock clock) {
    this.order = order;
    this.consumer = consumer;
    this.recordSteps = recordSteps;
    this.calls = calls;
    this.settler = settler;
    this.shutdown = shutdown;
    this.clock = clock;
  }

  /**
   * On the loop's thread: hands every releasable key's records over and settles them.
   *
   * @return whether any were
   */
  boolean run() {
    List<Run> runs = new ArrayList<>();
    for (KeyOrder.Released released : order.releasable()) {
      TopicPartition tp = released.chain().partition();
      if (shutdown.requested()) {
        break;
      }
      if (!consumer.assignment().contains(tp)) {
        continue;
      }
      Instant now = clock.instant();
      List<RecordStep> steps = new ArrayList<>();
      List<HandlerCalls.Work> works = new ArrayList<>();
      for (ConsumerRecord<byte[], byte[]> r : released.records()) {
        RecordStep step = recordSteps.prepare(r, now, works, false);
        if (step instanceof RecordStep.Call && works.size() > 1) {
          HandlerCalls.stopRunOnFailure(works, works.size() - 2);
        }
        steps.add(step);
        if (step instanceof RecordStep.Unreadable) {
          break; // settled before the key's next record is called
        }
      }
      runs.add(
          new Run(
              tp,
              released.records().subList(0, steps.size()),
              steps,
              works.isEmpty() ? List.of() : calls.startAll(works),
              now,
              true));
    }
    // Each is settled even after a stop: the settler settles what started and cancels the rest.
    // All are known to it first: a revocation while one is awaited settles the others' started
    // calls too, before their partition's commit.
    runs.forEach(settler::register);
    runs.forEach(settler::settle);
    return !runs.isEmpty();
  }
}
