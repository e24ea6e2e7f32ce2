package dev.courier.backpressure.internal;

import dev.courier.backpressure.GroupLag;
import dev.courier.backpressure.LagSnapshot;
import dev.courier.backpressure.LogEnd;
import dev.courier.backpressure.PartitionLag;
import dev.courier.backpressure.Status;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * The monitor's meters, named like kafka-lag-exporter's with Courier's prefix so dashboards carry
 * over. Per partition ({@code group}, {@code topic}, {@code partition}): {@code
 * courier_monitor_group_lag}, {@code courier_monitor_group_lag_seconds} (age of the oldest
 * unconsumed record; tag {@code method} says exact or estimate), {@code
 * courier_monitor_group_offset}, {@code courier_monitor_group_status} ({@link Status#code()}). Per
 * group: {@code courier_monitor_group_sum_lag}, {@code ..._max_lag}, {@code ..._max_lag_seconds},
 * {@code courier_monitor_status}, {@code courier_monitor_lag_growth_rate}, {@code
 * courier_monitor_commit_rate}, {@code courier_monitor_time_to_drain_seconds} (+Inf when not
 * draining). Per partition of a topic: {@code courier_monitor_partition_latest_offset}, {@code
 * courier_monitor_partition_produce_rate}. The monitor itself: {@code
 * courier_monitor_tick_seconds}, {@code courier_monitor_admin_requests}, {@code
 * courier_monitor_fetch_requests} (last tick), {@code courier_monitor_failed_ticks_total}.
 */
public final class MonitorMetrics implements AutoCloseable {

  static final String STATUS_HELP =
      "0 OK, 1 WARN, 2 ERR, 3 STOP, 4 STALL, 5 REWIND, 6 UNKNOWN (no figures).";

  /** The per-partition series' help, shared with the text exposition. */
  public static final String[] PARTITION_HELP = {
    "Log-end minus committed offset.",
    "Age of the oldest unconsumed record.",
    "Committed offset (-1: none).",
    STATUS_HELP
  };

  private final MeterRegistry registry;
  private final Timer tick;
  private final Counter failed;
  private final AtomicLong adminRequests = new AtomicLong();
  private final AtomicLong fetchRequests = new AtomicLong();
  private final List<Meter> plain = new ArrayList<>();
  private final GaugeFamily partitions;
  private final GaugeFamily groups;
  private final GaugeFamily topicPartitions;

  private final boolean partitionMeters;

  public MonitorMetrics(MeterRegistry registry, String method) {
    this(registry, method, true);
  }

  public MonitorMetrics(MeterRegistry registry, String method, boolean partitionMeters) {
    this.registry = registry;
    this.partitionMeters = partitionMeters;
    tick =
        Timer.builder("courier.monitor.tick")
            .description("Time of one monitor tick (Admin requests and age reads).")
            .register(registry);
    failed =
        Counter.builder("courier.monitor.failed.ticks")
            .description("Ticks that failed (the monitor reports unhealthy until one succeeds).")
            .register(registry);
    plain.add(tick);
    plain.add(failed);
    plain.add(
        Gauge.builder("courier.monitor.admin.requests", adminRequests, AtomicLong::get)
            .description("Requests the monitor's Admin client sent in the last tick.")
            .register(registry));
    plain.add(
        Gauge.builder("courier.monitor.fetch.requests", fetchRequests, AtomicLong::get)
            .description("Fetch requests the age reader sent in the last tick.")
            .register(registry));
    partitions =
        new GaugeFamily(
            registry,
            new String[] {
              "courier.monitor.group.lag",
              "courier.monitor.group.lag.seconds",
              "courier.monitor.group.offset",
              "courier.monitor.group.status"
            },
            PARTITION_HELP,
            new Tags[] {Tags.empty(), Tags.of("method", method), Tags.empty(), Tags.empty()});
    groups =
        new GaugeFamily(
            registry,
            new String[] {
              "courier.monitor.group.sum.lag",
              "courier.monitor.group.max.lag",
              "courier.monitor.group.max.lag.seconds",
              "courier.monitor.status",
              "courier.monitor.lag.growth.rate",
              "courier.monitor.commit.rate",
              "courier.monitor.time.to.drain.seconds"
            },
            new String[] {
              "Sum of the group's partition lags (NaN while any is unknown).",
              "Largest partition lag of the group.",
              "Age of the group's oldest unconsumed record.",
              STATUS_HELP + " The group's status: its worst partition.",
              "Records per second the lag grew over the window (negative: shrinking).",
              "Records per second the group committed over the window.",
              "Seconds until the lag is gone at the current rates (+Inf when not draining)."
            },
            null);
    topicPartitions =
        new GaugeFamily(
            registry,
            new String[] {
              "courier.monitor.partition.latest.offset", "courier.monitor.partition.produce.rate"
            },
            new String[] {
              "Log-end offset of the partition.", "Records per second produced to the partition."
            },
            null);
  }

  /** The whole tick, publishing included. */
  public void recordTick(Duration duration) {
    tick.record(duration);
  }

  public void publish(LagSnapshot snapshot) {
    adminRequests.set(snapshot.adminRequests());
    fetchRequests.set(snapshot.fetchRequests());
    for (GroupLag g : snapshot.groups().values()) {
      if (partitionMeters) {
        for (PartitionLag p : g.partitions()) {
          String partition = String.valueOf(p.partition());
          // An unknown row has no figures, and a zero would claim the partition is caught up.
          partitions.set(
              List.of(p.group(), p.topic(), partition),
              () -> Tags.of("group", p.group(), "topic", p.topic(), "partition", partition),
              p.known() ? p.lag() : Double.NaN,
              p.known() ? seconds(p.oldestAge()) : Double.NaN,
              p.committedOffset(),
              p.verdict().status().code());
        }
      }
      boolean unknown = g.verdict().status() == Status.UNKNOWN;
      groups.set(
          g.group(),
          () -> Tags.of("group", g.group()),
          unknown ? Double.NaN : g.sumLag(),
          g.maxLag(),
          seconds(g.maxOldestAge()),
          g.verdict().status().code(),
          g.lagGrowthRate(),
          g.commitRate(),
          g.timeToDrain().map(MonitorMetrics::seconds).orElse(Double.POSITIVE_INFINITY));
    }
    for (LogEnd e : snapshot.logEnds()) {
      String partition = String.valueOf(e.partition());
      topicPartitions.set(
          List.of(e.topic(), partition),
          () -> Tags.of("topic", e.topic(), "partition", partition),
          e.offset(),
          e.produceRate());
    }
    partitions.removeUnset();
    groups.removeUnset();
    topicPartitions.removeUnset();
  }

  public void failedTick() {
    failed.increment();
  }

  private static double seconds(Duration d) {
    return d.toNanos() / 1e9;
  }

  @Override
  public void close() {
    partitions.removeAll();
    groups.removeAll();
    topicPartitions.removeAll();
    plain.forEach(registry::remove);
  }

  /**
   * Gauges that share label values, registered once per label set and updated in place: with
   * 100,000 partition rows a tick, re-registering meters (MultiGauge) cost seconds.
   */
  private static final class GaugeFamily {
    private final MeterRegistry registry;
    private final String[] names;
    private final String[] help;
    private final Tags[] extra;
    private final Map<Object, double[]> values = new HashMap<>();
    private final Map<Object, List<Meter>> meters = new HashMap<>();
    private final Set<Object> set = new HashSet<>();

    GaugeFamily(MeterRegistry registry, String[] names, String[] help, Tags[] extra) {
      this.registry = registry;
      this.names = names;
      this.help = help;
      this.extra = extra;
    }

    /** Sets the row of {@code key}; its tags are built only when the row is new. */
    void set(Object key, Supplier<Tags> newTags, double... row) {
      double[] holder = values.get(key);
      if (holder == null) {
        Tags tags = newTags.get();
        holder = new double[names.length];
        List<Meter> registered = new ArrayList<>();
        for (int i = 0; i < names.length; i++) {
          int index = i;
          registered.add(
              Gauge.builder(names[i], holder, h -> h[index])
                  .description(help[i])
                  .tags(extra == null ? tags : tags.and(extra[i]))
                  .strongReference(true)
                  .register(registry));
        }
        values.put(key, holder);
        meters.put(key, registered);
      }
      System.arraycopy(row, 0, holder, 0, names.length);
      set.add(key);
    }

    void removeUnset() {
      meters
          .entrySet()
          .removeIf(
              e -> {
                if (set.contains(e.getKey())) {
                  return false;
                }
                e.getValue().forEach(registry::remove);
                values.remove(e.getKey());
                return true;
              });
      set.clear();
    }

    void removeAll() {
      set.clear();
      removeUnset();
    }
  }
}
