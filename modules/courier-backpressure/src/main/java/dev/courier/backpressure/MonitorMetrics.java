package dev.courier.backpressure;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.MultiGauge.Row;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The monitor's meters, named like kafka-lag-exporter's with Courier's prefix so dashboards carry
 * over. Per partition ({@code group}, {@code topic}, {@code partition}): {@code
 * courier_consumergroup_group_lag}, {@code courier_consumergroup_group_lag_seconds} (age of the
 * oldest unconsumed record; tag {@code method} says exact or estimate), {@code
 * courier_consumergroup_group_offset}, {@code courier_consumergroup_group_status} ({@link
 * Status#code()}). Per group: {@code courier_consumergroup_group_sum_lag}, {@code ..._max_lag},
 * {@code ..._max_lag_seconds}, {@code courier_consumergroup_status}, {@code
 * courier_consumergroup_lag_growth_rate}, {@code courier_consumergroup_commit_rate}, {@code
 * courier_consumergroup_time_to_drain_seconds} (+Inf when not draining). Per partition of a topic:
 * {@code courier_partition_latest_offset}, {@code courier_partition_produce_rate}. The monitor
 * itself: {@code courier_monitor_tick_seconds}, {@code courier_monitor_admin_requests}, {@code
 * courier_monitor_fetch_requests} (last tick), {@code courier_monitor_failed_ticks_total}.
 */
final class MonitorMetrics implements AutoCloseable {

  private final MeterRegistry registry;
  private final String method;
  private final Map<String, MultiGauge> gauges = new HashMap<>();
  private final Timer tick;
  private final Counter failed;
  private final AtomicLong adminRequests = new AtomicLong();
  private final AtomicLong fetchRequests = new AtomicLong();
  private final List<Gauge> plain = new ArrayList<>();

  MonitorMetrics(MeterRegistry registry, String method) {
    this.registry = registry;
    this.method = method;
    tick =
        Timer.builder("courier.monitor.tick")
            .description("Time of one monitor tick (Admin requests and age reads).")
            .register(registry);
    failed =
        Counter.builder("courier.monitor.failed.ticks")
            .description("Ticks that failed (the monitor reports unhealthy until one succeeds).")
            .register(registry);
    plain.add(
        Gauge.builder("courier.monitor.admin.requests", adminRequests, AtomicLong::get)
            .description("Requests the monitor's Admin client sent in the last tick.")
            .register(registry));
    plain.add(
        Gauge.builder("courier.monitor.fetch.requests", fetchRequests, AtomicLong::get)
            .description("Fetch requests the age reader sent in the last tick.")
            .register(registry));
  }

  void publish(LagSnapshot snapshot) {
    tick.record(snapshot.tickDuration());
    adminRequests.set(snapshot.adminRequests());
    fetchRequests.set(snapshot.fetchRequests());
    Map<String, List<Row<?>>> rows = new HashMap<>();
    Map<String, Object[]> topicPartitions = new HashMap<>();
    for (GroupLag g : snapshot.groups().values()) {
      Tags group = Tags.of("group", g.group());
      add(rows, "courier.consumergroup.group.sum.lag", group, g.sumLag());
      add(rows, "courier.consumergroup.group.max.lag", group, g.maxLag());
      add(rows, "courier.consumergroup.group.max.lag.seconds", group, seconds(g.maxOldestAge()));
      add(rows, "courier.consumergroup.status", group, g.verdict().status().code());
      add(rows, "courier.consumergroup.lag.growth.rate", group, g.lagGrowthRate());
      add(
          rows,
          "courier.consumergroup.commit.rate",
          group,
          g.partitions().stream().mapToDouble(p -> p.rates().commitRate()).sum());
      add(
          rows,
          "courier.consumergroup.time.to.drain.seconds",
          group,
          g.timeToDrain().map(MonitorMetrics::seconds).orElse(Double.POSITIVE_INFINITY));
      for (PartitionLag p : g.partitions()) {
        Tags tags =
            Tags.of(
                "group", p.group(), "topic", p.topic(), "partition", String.valueOf(p.partition()));
        add(rows, "courier.consumergroup.group.lag", tags, p.lag());
        add(
            rows,
            "courier.consumergroup.group.lag.seconds",
            tags.and("method", method),
            seconds(p.oldestAge()));
        add(rows, "courier.consumergroup.group.offset", tags, p.committedOffset());
        add(rows, "courier.consumergroup.group.status", tags, p.verdict().status().code());
        topicPartitions.put(
            p.topic() + "\u0000" + p.partition(),
            new Object[] {p.topic(), p.partition(), p.logEndOffset(), p.rates().produceRate()});
      }
    }
    for (Object[] tp : topicPartitions.values()) {
      Tags tags = Tags.of("topic", (String) tp[0], "partition", String.valueOf(tp[1]));
      add(rows, "courier.partition.latest.offset", tags, (Long) tp[2]);
      add(rows, "courier.partition.produce.rate", tags, (Double) tp[3]);
    }
    gauges.keySet().forEach(name -> rows.putIfAbsent(name, List.of()));
    rows.forEach((name, list) -> gauge(name).register(list, true));
  }

  void failedTick() {
    failed.increment();
  }

  private static void add(Map<String, List<Row<?>>> rows, String name, Tags tags, double value) {
    rows.computeIfAbsent(name, n -> new ArrayList<>()).add(Row.of(tags, value));
  }

  private MultiGauge gauge(String name) {
    return gauges.computeIfAbsent(name, n -> MultiGauge.builder(n).register(registry));
  }

  private static double seconds(java.time.Duration d) {
    return d.toNanos() / 1e9;
  }

  @Override
  public void close() {
    gauges.values().forEach(g -> g.register(List.of(), true));
    registry.remove(tick);
    registry.remove(failed);
    plain.forEach(registry::remove);
  }
}
