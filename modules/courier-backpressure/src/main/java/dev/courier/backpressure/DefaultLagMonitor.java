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

  /** The timestamp last read for a group's position; reused while fresh and unchanged. */
  private record AgeMemo(long position, long timestamp, Instant readAt) {}

  private final MonitorConfig config;
  private final boolean estimate;
  private final boolean fromEarliest;
  private final Clock clock;
  private final Admin admin;
  private final OffsetCollector collector;
  private final OldestRecordReader reader;
  private final StatusEvaluator evaluator;
  private final MonitorMetrics metrics;
  private final Map<Key, PartitionWindow> windows = new HashMap<>();
  private final Map<Key, AgeMemo> memos = new HashMap<>();
  private final Map<TopicPartition, OffsetTimeTable> tables = new HashMap<>();
  private volatile LagSnapshot latest = LagSnapshot.EMPTY;
  private volatile boolean healthy = true;
  private ScheduledExecutorService scheduler;

  DefaultLagMonitor(MonitorConfig config, MeterRegistry registry, Clock clock) {
    this.config = config;
    this.estimate = config.estimateAge();
    this.fromEarliest = config.uncommittedFromEarliest();
    this.clock = clock;
    Map<String, Object> client = config.clients().admin();
    client.putIfAbsent("client.id", "courier-monitor-admin");
    // Admin describes a classic group by trying the KIP-848 API first and retrying with the
    // classic one after retry.backoff.ms: at the default 100 ms that wait dominated every tick.
    client.putIfAbsent("retry.backoff.ms", 10);
    this.admin = Admin.create(client);
    Duration timeout = config.tickInterval().multipliedBy(2).plusSeconds(10);
    this.collector =
        new OffsetCollector(admin, config.groups(), config.excludePattern(), fromEarliest, timeout);
    this.reader = estimate ? null : new OldestRecordReader(config.clients().consumer());
    this.evaluator = new StatusEvaluator(config.window());
    this.metrics =
        new MonitorMetrics(registry, estimate ? "estimate" : "exact", config.partitionMeters());
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
      Map<String, Set<TopicPartition>> partitionsByGroup = new HashMap<>();
      offsets.groups().forEach((g, go) -> partitionsByGroup.put(g, partitionsOf(go)));
      Map<Key, Long> agePositions = agePositions(offsets, partitionsByGroup);
      readTimestamps(agePositions, offsets.logEndOffsets(), now);
      Map<String, GroupLag> groups = new HashMap<>();
      Set<Key> seen = new HashSet<>();
      for (GroupOffsets g : offsets.groups().values()) {
        List<PartitionLag> parts = new ArrayList<>();
        for (TopicPartition tp : partitionsByGroup.get(g.group())) {
          Long end = offsets.logEndOffsets().get(tp);
          if (end == null) {
            continue;
          }
          Key key = new Key(g.group(), tp);
          seen.add(key);
          parts.add(partition(key, g, end, offsets, agePositions.get(key), now));
        }
        parts.sort(
            Comparator.comparing(PartitionLag::topic).thenComparing(PartitionLag::partition));
        groups.put(g.group(), GroupLag.of(g.group(), g.state(), g.members(), parts));
      }
      windows.keySet().retainAll(seen);
      memos.keySet().retainAll(seen);
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
      metrics.recordTick(Duration.ofNanos(System.nanoTime() - started));
      return latest;
    } catch (RuntimeException e) {
      healthy = false;
      metrics.failedTick();
      throw e;
    }
  }

  private PartitionLag partition(
      Key key, GroupOffsets g, long end, ClusterOffsets offsets, Long agePosition, Instant now) {
    TopicPartition tp = key.partition();
    Long committed = g.committed().get(tp);
    long lag;
    if (committed != null) {
      lag = Math.max(0, end - committed);
    } else if (fromEarliest) {
      lag = Math.max(0, end - offsets.logStartOffsets().getOrDefault(tp, end));
    } else {
      lag = 0;
    }
    Duration age = age(key, lag, agePosition, now);
    PartitionWindow window =
        windows.computeIfAbsent(key, k -> new PartitionWindow(config.window()));
    window.add(new OffsetSample(now, committed == null ? -1 : committed, end, lag));
    Owner owner = g.owners().getOrDefault(tp, Owner.NONE);
    Verdict verdict = evaluator.evaluate(window, window.lastAdvance(), owner != Owner.NONE, now);
    return new PartitionLag(
        g.group(),
        tp.topic(),
        tp.partition(),
        committed == null ? -1 : committed,
        end,
        lag,
        age,
        estimate,
        owner.consumerId(),
        owner.host(),
        owner.clientId(),
        window.rates(),
        verdict);
  }

  private Duration age(Key key, long lag, Long position, Instant now) {
    if (lag == 0 || position == null) {
      return Duration.ZERO;
    }
    if (reader == null) {
      return nonNegative(Duration.between(table(key.partition()).producedAt(position), now));
    }
    AgeMemo memo = memos.get(key);
    if (memo == null) {
      LOG.debug("no record read in time for {} at {}", key, position);
      return Duration.ZERO;
    }
    if (memo.timestamp() == OldestRecordReader.NOTHING_WAITING) {
      return Duration.ZERO;
    }
    // A memo of an older position (the read timed out) overstates the age slightly, never hides it.
    return nonNegative(Duration.between(Instant.ofEpochMilli(memo.timestamp()), now));
  }

  /** Where each lagging partition's oldest unconsumed record sits, per group. */
  private Map<Key, Long> agePositions(
      ClusterOffsets offsets, Map<String, Set<TopicPartition>> partitionsByGroup) {
    Map<Key, Long> positions = new HashMap<>();
    for (GroupOffsets g : offsets.groups().values()) {
      for (TopicPartition tp : partitionsByGroup.get(g.group())) {
        Long end = offsets.logEndOffsets().get(tp);
        Long committed = g.committed().get(tp);
        Long position =
            committed != null ? committed : fromEarliest ? offsets.logStartOffsets().get(tp) : end;
        if (end != null && position != null && position < end) {
          positions.put(new Key(g.group(), tp), position);
        }
      }
    }
    return positions;
  }

  /**
   * Reads the timestamps of positions not read before (or read longer ago than the cache time:
   * retention may have deleted the record since), each distinct position once for all groups.
   */
  private void readTimestamps(
      Map<Key, Long> positions, Map<TopicPartition, Long> ends, Instant now) {
    if (reader == null || positions.isEmpty()) {
      return;
    }
    Duration ttl = config.ageCacheTtl();
    Map<Key, Position> stale = new HashMap<>();
    positions.forEach(
        (key, offset) -> {
          AgeMemo memo = memos.get(key);
          if (memo == null
              || memo.position() != offset
              || Duration.between(memo.readAt(), now).compareTo(ttl) >= 0) {
            stale.put(key, new Position(key.partition(), offset));
          }
        });
    if (stale.isEmpty()) {
      return;
    }
    Map<Position, Long> read =
        reader.read(new HashSet<>(stale.values()), ends, config.ageReadTimeout());
    stale.forEach(
        (key, position) -> {
          Long timestamp = read.get(position);
          if (timestamp != null) {
            memos.put(key, new AgeMemo(position.offset(), timestamp, now));
          }
        });
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
