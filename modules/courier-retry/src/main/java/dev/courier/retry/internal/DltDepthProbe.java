package dev.courier.retry.internal;

import dev.courier.core.internal.KafkaFutures;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsResult.ListOffsetsResultInfo;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Counts the records in a dead-letter topic every so often, on its own thread with its own Admin
 * client: the consumer loop never blocks on it. A failed count keeps the last figure (-1 before the
 * first), logged at debug since the loop's own health says more; the time of the last count says
 * how old the figure is.
 */
public final class DltDepthProbe implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(DltDepthProbe.class);
  private static final Duration TIMEOUT = Duration.ofSeconds(10);

  private final Map<String, Object> adminConfig;
  private final String topic;
  private final AtomicLong depth;
  private final AtomicReference<Instant> countedAt;
  private final Clock clock;
  private final ScheduledExecutorService scheduler;

  private Admin admin;

  public DltDepthProbe(
      Map<String, Object> adminConfig,
      String topic,
      AtomicLong depth,
      AtomicReference<Instant> countedAt,
      Clock clock) {
    this.adminConfig = Map.copyOf(adminConfig);
    this.topic = topic;
    this.depth = depth;
    this.countedAt = countedAt;
    this.clock = clock;
    depth.set(-1);
    this.scheduler =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "courier-dlt-depth");
              t.setDaemon(true);
              return t;
            });
  }

  /** Creates its Admin client and counts every {@code every}, the first time at once. */
  public DltDepthProbe start(Duration every) {
    admin = Admin.create(adminConfig);
    scheduler.scheduleWithFixedDelay(this::count, 0, every.toMillis(), TimeUnit.MILLISECONDS);
    return this;
  }

  private void count() {
    try {
      TopicDescription d =
          KafkaFutures.await(admin.describeTopics(List.of(topic)).allTopicNames(), TIMEOUT)
              .get(topic);
      List<TopicPartition> parts = new ArrayList<>();
      d.partitions().forEach(p -> parts.add(new TopicPartition(topic, p.partition())));
      Map<TopicPartition, OffsetSpec> earliest = new HashMap<>();
      Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
      parts.forEach(
          tp -> {
            earliest.put(tp, OffsetSpec.earliest());
            latest.put(tp, OffsetSpec.latest());
          });
      Map<TopicPartition, ListOffsetsResultInfo> start =
          KafkaFutures.await(admin.listOffsets(earliest).all(), TIMEOUT);
      Map<TopicPartition, ListOffsetsResultInfo> end =
          KafkaFutures.await(admin.listOffsets(latest).all(), TIMEOUT);
      depth.set(
          parts.stream().mapToLong(tp -> end.get(tp).offset() - start.get(tp).offset()).sum());
      countedAt.set(clock.instant());
    } catch (RuntimeException e) {
      LOG.debug("cannot count the records in {}: {}", topic, e.toString());
    }
  }

  @Override
  public void close() {
    scheduler.shutdownNow();
    if (admin != null) {
      admin.close(Duration.ofSeconds(2));
    }
  }
}
