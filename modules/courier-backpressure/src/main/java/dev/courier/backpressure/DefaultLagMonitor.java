package dev.courier.backpressure;

import dev.courier.backpressure.internal.AgeBook;
import dev.courier.backpressure.internal.ClusterOffsets;
import dev.courier.backpressure.internal.ClusterOffsets.Assignment;
import dev.courier.backpressure.internal.ClusterOffsets.GroupOffsets;
import dev.courier.backpressure.internal.ClusterOffsets.Owner;
import dev.courier.backpressure.internal.GroupRows;
import dev.courier.backpressure.internal.GroupWindows;
import dev.courier.backpressure.internal.MetricSums;
import dev.courier.backpressure.internal.MonitorMetrics;
import dev.courier.backpressure.internal.OffsetCollector;
import dev.courier.backpressure.internal.OldestRecordReader;
import dev.courier.backpressure.internal.PairFigures;
import dev.courier.backpressure.internal.PartitionTable;
import dev.courier.backpressure.internal.TickPartitions;
import dev.courier.backpressure.internal.WindowSlots;
import dev.courier.core.ServiceHealth;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
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

  private final MonitorConfig config;
  private final Clock clock;
  private final Admin admin;
  private final OffsetCollector collector;
  private final OldestRecordReader reader;
  private final WindowSlots slots;
  private final PartitionTable partitions;
  private final AgeBook ages;
  private final PairFigures figures;
  private final MonitorMetrics metrics;
  private final Map<String, GroupWindows> windows = new HashMap<>();
  private int tickNumber;
  private long previousTickAt = Long.MIN_VALUE;
  private volatile LagSnapshot latest = LagSnapshot.EMPTY;
  private volatile String lastFailure;
  private volatile Instant tickStartedAt;
  private ScheduledExecutorService scheduler;

  DefaultLagMonitor(MonitorConfig config, MeterRegistry registry, Clock clock) {
    this.config = config;
    boolean estimate = config.estimateAge();
    this.clock = clock;
    Map<String, Object> client = config.clients().admin();
    client.putIfAbsent("client.id", "courier-monitor-admin");
    // Admin describes a classic group by trying the KIP-848 API first and retrying with the
    // classic one after retry.backoff.ms: at the default 100 ms that wait dominated every tick.
    client.putIfAbsent("retry.backoff.ms", 10);
    this.admin = Admin.create(client);
    // A partition without a leader is waited for this long, then reported UNKNOWN: it bounds the
    // tick, it does not fail it.
    Duration timeout = max(Duration.ofSeconds(5), config.tickInterval().multipliedBy(2));
    this.collector =
        new OffsetCollector(
            admin,
            config.groups(),
            config.includePattern(),
            config.excludePattern(),
            config.uncommittedFromEarliest(),
            timeout);
    this.reader = estimate ? null : new OldestRecordReader(config.clients().consumer());
    this.slots = new WindowSlots(config.window());
    this.partitions = new PartitionTable(slots, estimate);
    this.ages =
        estimate ? null : new AgeBook(reader, config.ageCacheTtl(), config.ageReadTimeout());
    this.figures = new PairFigures(slots, partitions, ages, config.uncommittedFromEarliest());
    this.metrics = new MonitorMetrics(registry, config.ageMode().value(), config.partitionMeters());
  }

  @Override
  public synchronized LagSnapshot tick() {
    long started = System.nanoTime();
    tickStartedAt = clock.instant();
    long adminBefore = MetricSums.requestTotal(admin.metrics(), "admin-client-metrics");
    long fetchBefore = reader == null ? 0 : reader.fetchRequests();
    try {
      ClusterOffsets offsets = collector.collect();
      // Millisecond times: record timestamps are milliseconds, and ages should come out exact.
      Instant now = clock.instant().truncatedTo(ChronoUnit.MILLIS);
      long nowMillis = now.toEpochMilli();
      int tick = ++tickNumber;
      int opened = slots.advance(nowMillis);
      Map<String, Owner[]> owners = new HashMap<>();
      for (GroupOffsets g : offsets.groups().values()) {
        owners.put(
            g.group(), refer(g, windows.computeIfAbsent(g.group(), k -> new GroupWindows()), tick));
      }
      windows.keySet().retainAll(offsets.groups().keySet());
      partitions.observe(
          tick,
          nowMillis,
          opened,
          offsets.logEndOffsets(),
          offsets.logStartOffsets(),
          offsets.partitionProblems());
      if (ages != null) {
        windows.values().forEach(this::wantAges);
        ages.resolve(nowMillis, partitions::partition, offsets.logEndOffsets());
      }
      TickPartitions tickPartitions = partitions.figures();
      Map<String, GroupLag> groups = new HashMap<>();
      for (GroupOffsets g : offsets.groups().values()) {
        GroupRows rows =
            figures.rows(
                g.group(),
                windows.get(g.group()),
                owners.get(g.group()),
                tickPartitions,
                nowMillis,
                previousTickAt,
                opened);
        groups.put(
            g.group(),
            GroupLag.rolledUp(g.group(), g.state(), g.members(), rows, rows.rollUp(), now));
      }
      offsets
          .groupProblems()
          .forEach(
              (group, reason) ->
                  groups.put(
                      group,
                      GroupLag.unknown(
                          group,
                          reason.startsWith("not found") ? "NotFound" : "Unknown",
                          reason,
                          now)));
      previousTickAt = nowMillis;
      long adminRequests =
          MetricSums.requestTotal(admin.metrics(), "admin-client-metrics") - adminBefore;
      long fetchRequests = reader == null ? 0 : reader.fetchRequests() - fetchBefore;
      latest =
          new LagSnapshot(
              now,
              Duration.ofNanos(System.nanoTime() - started),
              adminRequests,
              fetchRequests,
              groups,
              logEnds(tickPartitions));
      lastFailure = null;
      metrics.publish(latest);
      metrics.recordTick(Duration.ofNanos(System.nanoTime() - started));
      return latest;
    } catch (RuntimeException e) {
      lastFailure = e.getMessage();
      metrics.failedTick();
      throw e;
    } finally {
      tickStartedAt = null;
    }
  }

  /** Marks the group's partitions (committed or owned) as referred to this tick. */
  private Owner[] refer(GroupOffsets g, GroupWindows w, int tick) {
    g.committed().forEach((tp, offset) -> w.row(partitions.id(tp, tick), tick, offset, -1));
    Owner[] owners = new Owner[g.assignments().size()];
    for (int i = 0; i < owners.length; i++) {
      Assignment a = g.assignments().get(i);
      owners[i] = a.owner();
      for (TopicPartition tp : a.partitions()) {
        w.row(partitions.id(tp, tick), tick, -1, i);
      }
    }
    w.sweep(tick);
    return owners;
  }

  private void wantAges(GroupWindows w) {
    for (int row = 0; row < w.count(); row++) {
      long position = figures.waitingAt(w, row);
      if (position >= 0) {
        ages.want(w.id(row), position);
      }
    }
  }

  private static List<LogEnd> logEnds(TickPartitions t) {
    List<LogEnd> ends = new ArrayList<>();
    for (int id = 0; id < t.partitions().length; id++) {
      TopicPartition tp = t.partitions()[id];
      if (tp != null && t.ends()[id] >= 0) {
        ends.add(new LogEnd(tp.topic(), tp.partition(), t.ends()[id], t.produceRates()[id]));
      }
    }
    return ends;
  }

  private static Duration max(Duration a, Duration b) {
    return a.compareTo(b) >= 0 ? a : b;
  }

  @Override
  public LagSnapshot latest() {
    return latest;
  }

  @Override
  public ServiceHealth health() {
    Instant now = clock.instant();
    LagSnapshot snapshot = latest;
    String failure = lastFailure;
    if (snapshot == LagSnapshot.EMPTY) {
      return failure == null
          ? ServiceHealth.waiting("STARTING", "no tick yet", now)
          : ServiceHealth.waiting("STALE", "no tick has succeeded yet: " + failure, now);
    }
    Duration age = Duration.between(snapshot.at(), now);
    if (age.compareTo(config.staleAfter()) > 0) {
      return ServiceHealth.waiting(
          "STALE",
          "figures are "
              + age.toSeconds()
              + " s old ("
              + MonitorConfig.STALE_AFTER_MS
              + "="
              + config.staleAfter().toMillis()
              + ")"
              + (failure == null ? "" : "; the last tick failed: " + failure)
              + running(now),
          snapshot.at());
    }
    return ServiceHealth.up(
        "OK",
        "figures from "
            + snapshot.at()
            + (failure == null ? "" : "; the last tick failed, within the stale bound: " + failure),
        snapshot.at());
  }

  /** Why no newer figures: a tick waiting for Kafka says how long it has waited. */
  private String running(Instant now) {
    Instant started = tickStartedAt;
    return started == null
        ? ""
        : "; a tick has waited " + Duration.between(started, now).toSeconds() + " s for Kafka";
  }

  @Override
  public Duration staleAfter() {
    return config.staleAfter();
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
