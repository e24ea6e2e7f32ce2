package dev.courier.benchmarks;

import dev.courier.backpressure.LagMonitor;
import dev.courier.backpressure.LagSnapshot;
import dev.courier.backpressure.MonitorConfig;
import dev.courier.testkit.CourierInfra;
import dev.courier.testkit.InfraSettings;
import dev.courier.testkit.KafkaBroker;
import dev.courier.testkit.UniqueNames;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListConsumerGroupOffsetsSpec;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * The monitor's tick against its raw baseline (one batched ListOffsets plus one batched OffsetFetch
 * for all groups) from 10 to 10,000 partitions across 10 and 100 groups. Every group lags on every
 * partition at one of three offsets, so each tick also reads the oldest record's age (cold: every
 * position read, on a fresh monitor; warm: timestamps cached). The monitor runs as the service does
 * (per-partition series written from the snapshot, no meter per pair). Targets: at 1,000 x 100 a
 * warm p99 within 300 ms and a cold tick within 1.5 s; at 10,000 x 100 the service within a 512 MiB
 * heap; admin requests per tick flat across sizes.
 *
 * <p>Run: {@code java -cp modules/courier-benchmarks/target/benchmarks.jar
 * dev.courier.benchmarks.BackpressureMonitorBenchmark [partitions,..] [groups,..] [ticks]}
 */
public final class BackpressureMonitorBenchmark {

  private static final int COLD_RUNS = 3;
  private static final String COLD = ": courier monitor tick (cold)";

  private BackpressureMonitorBenchmark() {}

  public static void main(String[] args) throws Exception {
    int[] partitionCounts = ints(args.length > 0 ? args[0] : "10,100,1000,10000");
    int[] groupCounts = ints(args.length > 1 ? args[1] : "10,100");
    int ticks = args.length > 2 ? Integer.parseInt(args[2]) : 25;
    List<Measurement> rows = new ArrayList<>();
    List<String> notes = new ArrayList<>();
    List<Check> checks = new ArrayList<>();
    try (CourierInfra infra = CourierInfra.start(InfraSettings.fromEnvironment())) {
      KafkaBroker kafka = infra.kafka();
      for (int partitions : partitionCounts) {
        List<TopicPartition> topicPartitions = createTopics(kafka, partitions);
        produce(kafka, topicPartitions);
        for (int groupCount : groupCounts) {
          List<String> groups = commitGroups(kafka.admin(), topicPartitions, groupCount);
          String label = partitions + " partitions x " + groupCount + " groups";
          int colds = partitions * groupCount >= 1_000_000 ? 1 : COLD_RUNS;
          Measurement[] rawAndWarm =
              alternatedTicks(kafka, topicPartitions, groups, label, ticks, colds, rows, notes);
          Measurement raw = rawAndWarm[0];
          Measurement warm = rawAndWarm[1];
          rows.add(raw);
          rows.add(warm);
          notes.add(
              String.format(
                  Locale.ROOT,
                  "%s: warm p50 %.0f ms, p99 %.0f ms over %d ticks; raw p50 %.0f ms; warm p50 /"
                      + " raw p50 = %.2f",
                  label,
                  warm.median(),
                  warm.percentile(0.99),
                  warm.runs(),
                  raw.median(),
                  warm.median() / raw.median()));
          if (partitions == 1000 && groupCount == 100) {
            checks.add(Check.reported(warm.over(label + ": warm tick / raw tick", raw), "x"));
            checks.add(
                new Check(
                    new Measurement(label + ": warm tick p99", List.of(warm.percentile(0.99))),
                    " ms",
                    Target.atMost(300)));
            checks.add(new Check(coldOf(rows, label), " ms", Target.atMost(1500)));
          }
          if (groupCount >= 100 && (partitions == 1000 || partitions >= 10_000)) {
            notes.add(
                MonitorHeap.measure(
                    kafka.bootstrapServers(),
                    groups,
                    partitions,
                    partitions >= 10_000 ? 512 : 256));
          }
        }
      }
    }
    notes.add(
        "each group lags on every partition at offset 0, 1 or 2 of 3 records; "
            + ticks
            + " warm ticks a size");
    notes.add(
        "targets: 1,000 x 100 warm p99 <= 300 ms and cold <= 1.5 s; 10,000 x 100 within a 512"
            + " MiB heap; admin requests per tick flat (one broker here)");
    BenchmarkReport.write(
        Path.of("target", "benchmarks"), "backpressure", "ms per tick", rows, checks, notes);
  }

  private static Measurement coldOf(List<Measurement> rows, String label) {
    return rows.stream().filter(m -> m.name().equals(label + COLD)).findFirst().orElseThrow();
  }

  /**
   * Cold ticks on fresh monitors, then warm ticks alternated with the raw batched calls tick by
   * tick (raw first on even ticks, the monitor first on odd ones).
   *
   * @return the raw calls' and the warm monitor's times
   */
  private static Measurement[] alternatedTicks(
      KafkaBroker kafka,
      List<TopicPartition> partitions,
      List<String> groups,
      String label,
      int ticks,
      int colds,
      List<Measurement> rows,
      List<String> notes)
      throws Exception {
    Map<String, Object> settings = new HashMap<>();
    settings.put(MonitorConfig.BOOTSTRAP_SERVERS, kafka.bootstrapServers());
    settings.put(MonitorConfig.GROUPS, String.join(",", groups));
    settings.put(MonitorConfig.OLDEST_AGE_READ_TIMEOUT_MS, "60000");
    settings.put(MonitorConfig.PARTITION_METERS, "false");
    RawTick raw = new RawTick(kafka.admin(), partitions, groups);
    raw.run(); // warms the admin client's metadata, as the monitor's first tick does its own
    List<Double> cold = new ArrayList<>();
    List<Double> warm = new ArrayList<>();
    List<Double> rawMillis = new ArrayList<>();
    LagSnapshot first = null;
    LagSnapshot last = null;
    for (int run = 0; run < colds; run++) {
      try (LagMonitor monitor =
          LagMonitor.create(settings, new SimpleMeterRegistry(), Clock.systemUTC())) {
        long coldStart = System.nanoTime();
        first = monitor.tick();
        cold.add((System.nanoTime() - coldStart) / 1e6);
        if (run == colds - 1) {
          for (int i = 0; i < ticks; i++) {
            if (i % 2 == 0) {
              rawMillis.add(raw.run());
            }
            long started = System.nanoTime();
            last = monitor.tick();
            warm.add((System.nanoTime() - started) / 1e6);
            if (i % 2 == 1) {
              rawMillis.add(raw.run());
            }
          }
        }
      }
    }
    Measurement coldTicks = new Measurement(label + COLD, cold);
    rows.add(coldTicks);
    notes.add(
        String.format(
            Locale.ROOT,
            "%s: cold tick median %.0f ms of %d (max %.0f; %d admin requests, %d fetches); warm"
                + " tick %d admin requests, %d fetches",
            label,
            coldTicks.median(),
            cold.size(),
            coldTicks.max(),
            first.adminRequests(),
            first.fetchRequests(),
            last.adminRequests(),
            last.fetchRequests()));
    return new Measurement[] {
      new Measurement(label + ": raw batched calls", rawMillis),
      new Measurement(label + ": courier monitor tick (warm)", warm)
    };
  }

  /** One batched ListOffsets and one batched OffsetFetch for every group: the least a tick asks. */
  private record RawTick(
      Admin admin,
      Map<TopicPartition, OffsetSpec> latest,
      Map<String, ListConsumerGroupOffsetsSpec> specs) {

    RawTick(Admin admin, List<TopicPartition> partitions, List<String> groups) {
      this(admin, latest(partitions), specs(groups));
    }

    /** Milliseconds the two calls took. */
    double run() throws Exception {
      long started = System.nanoTime();
      admin.listOffsets(latest).all().get(60, TimeUnit.SECONDS);
      admin.listConsumerGroupOffsets(specs).all().get(60, TimeUnit.SECONDS);
      return (System.nanoTime() - started) / 1e6;
    }

    private static Map<TopicPartition, OffsetSpec> latest(List<TopicPartition> partitions) {
      Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
      partitions.forEach(tp -> latest.put(tp, OffsetSpec.latest()));
      return latest;
    }

    private static Map<String, ListConsumerGroupOffsetsSpec> specs(List<String> groups) {
      Map<String, ListConsumerGroupOffsetsSpec> specs = new HashMap<>();
      groups.forEach(g -> specs.put(g, new ListConsumerGroupOffsetsSpec()));
      return specs;
    }
  }

  /**
   * Topics of at most 1,000 partitions: KRaft refuses to create more than 10,000 records in one
   * batch ("Unable to perform excessively large batch operation"), and real clusters spread that
   * many partitions over topics anyway.
   */
  private static List<TopicPartition> createTopics(KafkaBroker kafka, int partitions) {
    List<TopicPartition> all = new ArrayList<>();
    for (int made = 0; made < partitions; ) {
      int count = Math.min(1000, partitions - made);
      String topic = UniqueNames.topic("bench-lag");
      kafka.createTopic(topic, count);
      for (int p = 0; p < count; p++) {
        all.add(new TopicPartition(topic, p));
      }
      made += count;
    }
    return all;
  }

  private static List<String> commitGroups(Admin admin, List<TopicPartition> partitions, int count)
      throws Exception {
    List<String> groups = new ArrayList<>();
    for (int g = 0; g < count; g++) {
      String group = UniqueNames.group("bench-lag");
      Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
      for (TopicPartition tp : partitions) {
        offsets.put(tp, new OffsetAndMetadata(g % 3));
      }
      admin.alterConsumerGroupOffsets(group, offsets).all().get(120, TimeUnit.SECONDS);
      groups.add(group);
    }
    return groups;
  }

  private static void produce(KafkaBroker kafka, List<TopicPartition> partitions) {
    try (KafkaProducer<byte[], byte[]> producer =
        new KafkaProducer<>(
            kafka.producerConfig(), new ByteArraySerializer(), new ByteArraySerializer())) {
      for (int i = 0; i < 3; i++) {
        for (TopicPartition tp : partitions) {
          producer.send(
              new ProducerRecord<>(tp.topic(), tp.partition(), null, new byte[] {(byte) i}));
        }
      }
      producer.flush();
    }
  }

  private static int[] ints(String csv) {
    return java.util.Arrays.stream(csv.split(",")).mapToInt(Integer::parseInt).toArray();
  }
}
