package dev.courier.backpressure;

import dev.courier.backpressure.internal.AgeBook;
import dev.courier.backpressure.internal.ClusterOffsets;
import dev.courier.backpressure.internal.ClusterOffsets.Assignment;
import dev.courier.backpressure.internal.ClusterOffsets.GroupOffsets;
import dev.courier.backpressure.internal.ClusterOffsets.Owner;
import dev.courier.backpressure.internal.GroupRows;
import dev.courier.backpressure.internal.GroupWindows;
import dev.courier.backpressure.internal.MonitorMetrics;
import dev.courier.backpressure.internal.PairFigures;
import dev.courier.backpressure.internal.PartitionTable;
import dev.courier.backpressure.internal.TickPartitions;
import dev.courier.backpressure.internal.WindowSlots;
import dev.courier.core.ServiceHealth;
import dev.courier.core.internal.BootstrapNames;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The monitor: one tick at a time, on the caller's thread or a single scheduler thread. */
final class DefaultLagMonitor implements LagMonitor {

  private static final Logger LOG = LoggerFactory.getLogger(DefaultLagMonitor.class);

  private final MonitorConfig config;
  private final Clock clock;
  private final WindowSlots slots;
  private final PartitionTable partitions;
  private final MonitorMetrics metrics;
  private final Map<String, GroupWindows> windows = new HashMap<>();
  // Null until Kafka's clients can be built; guarded by this.
  private MonitorClients kafka;
  private PairFigures figures;
  private volatile String awaitingNames;
  private int tickNumber;
  private long previousTickAt = Long.MIN_VALUE;
  private volatile LagSnapshot latest = LagSnapshot.EMPTY;
  private volatile String lastFailure;
  private volatile Instant tickStartedAt;
  private ScheduledExecutorService scheduler;

  /**
   * Builds the Kafka clients at once when a name in {@code bootstrap.servers} resolves, so a
   * setting Kafka refuses fails here; otherwise the monitor is WAITING, with the reason, until a
   * tick finds a name that does (Kafka's clients cannot be built before that, and a broker whose
   * name does not exist yet is an outage to wait out, as one that does not answer).
   */
  DefaultLagMonitor(MonitorConfig config, MeterRegistry registry, Clock clock) {
    this.config = config;
    this.clock = clock;
    this.slots = new WindowSlots(config.window());
    this.partitions = new PartitionTable(slots, config.estimateAge());
    this.metrics = new MonitorMetrics(registry, config.ageMode().value(), config.partitionMeters());
    try {
      connected();
    } catch (RuntimeException e) {
      metrics.close(); // its meters leave the caller's registry with the monitor that failed
      throw e;
    }
  }

  /** The Kafka side, built now if it can be; null while no bootstrap name resolves. */
  private synchronized MonitorClients connected() {
    if (kafka != null) {
      return kafka;
    }
    Optional<String> unresolved = BootstrapNames.unresolved(config.clients());
    if (unresolved.isPresent()) {
      if (!unresolved.get().equals(awaitingNames)) {
        LOG.warn("waiting for Kafka: {}", unresolved.get());
      }
      awaitingNames = unresolved.get();
      return null;
    }
    try {
      kafka = MonitorClients.create(config);
    } catch (RuntimeException e) {
      // Resolved, but refused (a client setting Kafka rejects): /health says that, not the name.
      awaitingNames = null;
      lastFailure = e.getMessage();
      throw e;
    }
    figures = new PairFigures(slots, partitions, kafka.ages, config.uncommittedFromEarliest());
    if (awaitingNames != null) {
      LOG.info("Kafka's name resolves: {}", config.clients().bootstrapServersValue());
      awaitingNames = null;
    }
    return kafka;
  }

  @Override
  public synchronized LagSnapshot tick() {
    long started = System.nanoTime();
    MonitorClients kafka = connected();
    if (kafka == null) {
      throw new IllegalStateException(awaitingNames);
    }
    AgeBook ages = kafka.ages;
    tickStartedAt = clock.instant();
    long adminBefore = kafka.adminRequests();
    long fetchBefore = kafka.fetchRequests();
    try {
      ClusterOffsets offsets = kafka.collector.collect();
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
        windows.values().forEach(w -> wantAges(w, ages));
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
      long adminRequests = kafka.adminRequests() - adminBefore;
      long fetchRequests = kafka.fetchRequests() - fetchBefore;
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

  private void wantAges(GroupWindows w, AgeBook ages) {
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

  @Override
  public LagSnapshot latest() {
    return latest;
  }

  @Override
  public ServiceHealth health() {
    Instant now = clock.instant();
    LagSnapshot snapshot = latest;
    String failure = lastFailure;
    String names = awaitingNames;
    if (names != null) {
      return ServiceHealth.waiting("WAITING", names, now);
    }
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
            // While no name resolves, connected() has said why once; a failed tick each
            // interval would only repeat it.
            if (connected() != null) {
              tick();
            }
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
      if (kafka != null) {
        kafka.close();
      }
      metrics.close();
    }
  }
}
