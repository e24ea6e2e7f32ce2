package dev.courier.backpressure;

import dev.courier.backpressure.internal.ClusterOffsets;
import dev.courier.backpressure.internal.ClusterOffsets.GroupOffsets;
import dev.courier.backpressure.internal.ClusterOffsets.Owner;
import dev.courier.backpressure.internal.MetricSums;
import dev.courier.backpressure.internal.OffsetCollector;
import dev.courier.backpressure.internal.OffsetTimeTable;
import dev.courier.backpressure.internal.OldestRecordReader;
import dev.courier.backpressure.internal.OldestRecordReader.Position;
import dev.courier.backpressure.internal.PartitionWindow;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The monitor: one tick at a time, on the caller's thread or a single scheduler thread. */
final class DefaultLagMonitor implements LagMonitor {

  private static final Logger LOG = LoggerFactory.getLogger(DefaultLagMonitor.class);

  private record Key(String group, TopicPartition partition) {}

  private final MonitorConfig config;
  private final Clock clock;
  private final Admin admin;
  private final OffsetCollector collector;
  private final OldestRecordReader reader;
  private final StatusEvaluator evaluator;
  private final MonitorMetrics metrics;
  private final Map<Key, PartitionWindow> windows = new HashMap<>();
  private final Map<Key, Duration> lastAges = new HashMap<>();
  private final Map<TopicPartition, OffsetTimeTable> tables = new HashMap<>();
  private volatile LagSnapshot latest = LagSnapshot.EMPTY;
  private volatile boolean healthy = true;
  private ScheduledExecutorService scheduler;

  DefaultLagMonitor(MonitorConfig config, MeterRegistry registry, Clock clock) {
    this.config = config;
    this.clock = clock;
    Map<String, Object> client = config.clientConfig();
    client.putIfAbsent("client.id", "courier-monitor-admin");
    this.admin = Admin.create(client);
    Duration timeout = config.tickInterval().multipliedBy(2).plusSeconds(10);
    this.collector =
        new OffsetCollector(
            admin,
            config.groups(),
            config.excludePattern(),
            config.uncommittedFromEarliest(),
            timeout);
    this.reader =
        config.estimateAge()
            ? null
            : new OldestRecordReader(config.clientConfig(), clock, config.ageCacheTtl());
    this.evaluator = new StatusEvaluator(config.window());
    this.metrics = new MonitorMetrics(registry, config.estimateAge() ? "estimate" : "exact");
  }

  @Override
  public synchronized LagSnapshot tick() {
    long started = System.nanoTime();
    long adminBefore = MetricSums.requestTotal(admin.metrics(), "admin-client-metrics");
    long fetchBefore = reader == null ? 0 : reader.fetchRequests();
    try {
      ClusterOffsets offsets = collector.collect();
      Instant now = clock.instant();
      offsets.logEndOffsets().forEach((tp, end) -> table(tp).add(end, now));
      Map<Key, Long> agePositions = agePositions(offsets);
      Map<Position, Long> timestamps = readTimestamps(agePositions, offsets.logEndOffsets());
      Map<String, GroupLag> groups = new HashMap<>();
      Set<Key> seen = new HashSet<>();
      for (GroupOffsets g : offsets.groups().values()) {
        List<PartitionLag> parts = new ArrayList<>();
        for (TopicPartition tp : partitionsOf(g)) {
          Long end = offsets.logEndOffsets().get(tp);
          if (end == null) {
            continue;
          }
          Key key = new Key(g.group(), tp);
          seen.add(key);
          parts.add(partition(key, g, end, offsets, agePositions.get(key), timestamps, now));
        }
        parts.sort(
            Comparator.comparing(PartitionLag::topic).thenComparing(PartitionLag::partition));
        groups.put(g.group(), GroupLag.of(g.group(), g.state(), g.members(), parts));
      }
      windows.keySet().retainAll(seen);
      lastAges.keySet().retainAll(seen);
      tables.keySet().retainAll(offsets.logEndOffsets().keySet());
      long adminRequests =
          MetricSums.requestTotal(admin.metrics(), "admin-client-metrics") - adminBefore;
      long fetchRequests = reader == null ? 0 : reader.fetchRequests() - fetchBefore;
      latest =
          new LagSnapshot(
              now,
              Duration.ofNanos(System.nanoTime() - started),
              adminRequests,
              fetchRequests,
              groups);
      healthy = true;
      metrics.publish(latest);
      return latest;
    } catch (RuntimeException e) {
      healthy = false;
      metrics.failedTick();
      throw e;
    }
  }

  private PartitionLag partition(
      Key key,
      GroupOffsets g,
      long end,
      ClusterOffsets offsets,
      Long agePosition,
      Map<Position, Long> timestamps,
      Instant now) {
    TopicPartition tp = key.partition();
    Long committed = g.committed().get(tp);
    long lag;
    if (committed != null) {
      lag = Math.max(0, end - committed);
    } else if (config.uncommittedFromEarliest()) {
      lag = Math.max(0, end - offsets.logStartOffsets().getOrDefault(tp, end));
    } else {
      lag = 0;
    }
    Duration age = age(key, lag, agePosition, timestamps, now);
    PartitionWindow window =
        windows.computeIfAbsent(key, k -> new PartitionWindow(config.window()));
    window.add(new OffsetSample(now, committed == null ? -1 : committed, end, lag));
    Owner owner = g.owners().getOrDefault(tp, Owner.NONE);
    Verdict verdict =
        evaluator.evaluate(window.samples(), window.lastAdvance(), owner != Owner.NONE, now);
    return new PartitionLag(
        g.group(),
        tp.topic(),
        tp.partition(),
        committed == null ? -1 : committed,
        end,
        lag,
        age,
        config.estimateAge(),
        owner.consumerId(),
        owner.host(),
        owner.clientId(),
        window.rates(),
        verdict);
  }

  private Duration age(
      Key key, long lag, Long position, Map<Position, Long> timestamps, Instant now) {
    Duration age;
    if (lag == 0 || position == null) {
      age = Duration.ZERO;
    } else if (reader == null) {
      age = nonNegative(Duration.between(table(key.partition()).producedAt(position), now));
    } else {
      Long timestamp = timestamps.get(new Position(key.partition(), position));
      if (timestamp == null) {
        LOG.debug("no record read in time for {} at {}; keeping the last age", key, position);
        age = lastAges.getOrDefault(key, Duration.ZERO);
      } else if (timestamp == OldestRecordReader.NOTHING_WAITING) {
        age = Duration.ZERO;
      } else {
        age = nonNegative(Duration.between(Instant.ofEpochMilli(timestamp), now));
      }
    }
    lastAges.put(key, age);
    return age;
  }

  /** Where each lagging partition's oldest unconsumed record sits, per group. */
  private Map<Key, Long> agePositions(ClusterOffsets offsets) {
    Map<Key, Long> positions = new HashMap<>();
    for (GroupOffsets g : offsets.groups().values()) {
      for (TopicPartition tp : partitionsOf(g)) {
        Long end = offsets.logEndOffsets().get(tp);
        Long committed = g.committed().get(tp);
        Long position =
            committed != null
                ? committed
                : config.uncommittedFromEarliest() ? offsets.logStartOffsets().get(tp) : end;
        if (end != null && position != null && position < end) {
          positions.put(new Key(g.group(), tp), position);
        }
      }
    }
    return positions;
  }

  private Map<Position, Long> readTimestamps(
      Map<Key, Long> positions, Map<TopicPartition, Long> ends) {
    if (reader == null || positions.isEmpty()) {
      return Map.of();
    }
    Set<Position> wanted = new HashSet<>();
    positions.forEach((key, offset) -> wanted.add(new Position(key.partition(), offset)));
    return reader.read(wanted, ends, config.ageReadTimeout());
  }

  private static Set<TopicPartition> partitionsOf(GroupOffsets g) {
    Set<TopicPartition> all =
        new TreeSet<>(
            Comparator.comparing(TopicPartition::topic).thenComparing(TopicPartition::partition));
    all.addAll(g.committed().keySet());
    all.addAll(g.owners().keySet());
    return all;
  }

  private OffsetTimeTable table(TopicPartition tp) {
    return tables.computeIfAbsent(tp, k -> new OffsetTimeTable(64));
  }

  private static Duration nonNegative(Duration d) {
    return d.isNegative() ? Duration.ZERO : d;
  }

  @Override
  public LagSnapshot latest() {
    return latest;
  }

  @Override
  public boolean healthy() {
    return healthy;
  }

  @Override
  public synchronized void start() {
    if (scheduler != null) {
      return;
    }
    scheduler =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "courier-lag-monitor");
              t.setDaemon(true);
              return t;
            });
    scheduler.scheduleWithFixedDelay(
        () -> {
          try {
            tick();
          } catch (RuntimeException e) {
            LOG.warn("monitor tick failed: {}", e.getMessage());
          }
        },
        0,
        config.tickInterval().toMillis(),
        TimeUnit.MILLISECONDS);
  }

  @Override
  public void close() {
    if (scheduler != null) {
      scheduler.shutdownNow();
      try {
        scheduler.awaitTermination(10, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    synchronized (this) {
      if (reader != null) {
        reader.close();
      }
      admin.close(Duration.ofSeconds(5));
      metrics.close();
    }
  }
}
