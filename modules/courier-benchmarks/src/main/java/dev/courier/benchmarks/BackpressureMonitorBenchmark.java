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
 * for all groups) for 10, 100 and 1,000 partitions across 10 and 100 groups. Every group lags on
 * every partition at one of three offsets, so each tick also reads the oldest record's age (cold:
 * every position read; warm: timestamps cached). Target: 1,000 partitions x 100 groups within 1 s a
 * tick, one ListOffsets per broker.
 *
 * <p>Run: {@code java -cp modules/courier-benchmarks/target/benchmarks.jar
 * dev.courier.benchmarks.BackpressureMonitorBenchmark [partitions,..] [groups,..] [ticks]}
 */
public final class BackpressureMonitorBenchmark {

  private BackpressureMonitorBenchmark() {}

  public static void main(String[] args) throws Exception {
    int[] partitionCounts = ints(args.length > 0 ? args[0] : "10,100,1000");
    int[] groupCounts = ints(args.length > 1 ? args[1] : "10,100");
    int ticks = args.length > 2 ? Integer.parseInt(args[2]) : 5;
    List<Measurement> rows = new ArrayList<>();
    List<String> notes = new ArrayList<>();
    try (CourierInfra infra = CourierInfra.start(InfraSettings.fromEnvironment())) {
      KafkaBroker kafka = infra.kafka();
      for (int partitions : partitionCounts) {
        String topic = UniqueNames.topic("bench-lag");
        kafka.createTopic(topic, partitions);
        produce(kafka, topic, partitions);
        for (int groupCount : groupCounts) {
          List<String> groups = commitGroups(kafka.admin(), topic, partitions, groupCount);
          String label = partitions + " partitions x " + groupCount + " groups";
          Measurement raw =
              new Measurement(
                  label + ": raw batched calls",
                  rawTicks(kafka.admin(), topic, partitions, groups, ticks));
          rows.add(raw);
          rows.add(monitorTicks(kafka, groups, label, ticks, notes));
          if (partitions >= 1000 && groupCount >= 100) {
            notes.add(MonitorHeap.measure(kafka.bootstrapServers(), groups, 256));
          }
          notes.add(
              String.format(
                  Locale.ROOT,
                  "%s: warm tick / raw = %.2f",
                  label,
                  rows.get(rows.size() - 1).median() / raw.median()));
        }
      }
    }
    notes.add(
        "each group lags on every partition at offset 0, 1 or 2 of 3 records; " + ticks + " ticks");
    notes.add(
        "target: 1,000 partitions x 100 groups within 1 s a tick, one ListOffsets per broker"
            + " (one broker here: the admin requests per tick stay the same from 10 to 100,000"
            + " partition-group pairs)");
    BenchmarkReport.write(
        Path.of("target", "benchmarks"), "backpressure", "ms per tick", rows, notes);
  }

  private static Measurement monitorTicks(
      KafkaBroker kafka, List<String> groups, String label, int ticks, List<String> notes) {
    Map<String, Object> settings = new HashMap<>();
    settings.put(MonitorConfig.BOOTSTRAP_SERVERS, kafka.bootstrapServers());
    settings.put(MonitorConfig.GROUPS, String.join(",", groups));
    settings.put(MonitorConfig.AGE_READ_TIMEOUT_MS, "30000");
    try (LagMonitor monitor =
        LagMonitor.create(
            new MonitorConfig(settings), new SimpleMeterRegistry(), Clock.systemUTC())) {
      long coldStart = System.nanoTime();
      LagSnapshot cold = monitor.tick();
      double coldMillis = (System.nanoTime() - coldStart) / 1e6;
      List<Double> millis = new ArrayList<>();
      LagSnapshot warm = cold;
      for (int i = 0; i < ticks; i++) {
        long started = System.nanoTime();
        warm = monitor.tick();
        millis.add((System.nanoTime() - started) / 1e6);
      }
      notes.add(
          String.format(
              Locale.ROOT,
              "%s: cold tick %.0f ms (%d admin requests, %d fetches); warm tick %d admin requests,"
                  + " %d fetches",
              label,
              coldMillis,
              cold.adminRequests(),
              cold.fetchRequests(),
              warm.adminRequests(),
              warm.fetchRequests()));
      return new Measurement(label + ": courier monitor tick (warm)", millis);
    }
  }

  private static List<Double> rawTicks(
      Admin admin, String topic, int partitions, List<String> groups, int ticks) throws Exception {
    Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
    for (int p = 0; p < partitions; p++) {
      latest.put(new TopicPartition(topic, p), OffsetSpec.latest());
    }
    Map<String, ListConsumerGroupOffsetsSpec> specs = new HashMap<>();
    groups.forEach(g -> specs.put(g, new ListConsumerGroupOffsetsSpec()));
    List<Double> millis = new ArrayList<>();
    for (int i = 0; i <= ticks; i++) {
      long started = System.nanoTime();
      admin.listOffsets(latest).all().get(60, TimeUnit.SECONDS);
      admin.listConsumerGroupOffsets(specs).all().get(60, TimeUnit.SECONDS);
      if (i > 0) {
        millis.add((System.nanoTime() - started) / 1e6);
      }
    }
    return millis;
  }

  private static List<String> commitGroups(Admin admin, String topic, int partitions, int count)
      throws Exception {
    List<String> groups = new ArrayList<>();
    for (int g = 0; g < count; g++) {
      String group = UniqueNames.group("bench-lag");
      Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
      for (int p = 0; p < partitions; p++) {
        offsets.put(new TopicPartition(topic, p), new OffsetAndMetadata(g % 3));
      }
      admin.alterConsumerGroupOffsets(group, offsets).all().get(60, TimeUnit.SECONDS);
      groups.add(group);
    }
    return groups;
  }

  private static void produce(KafkaBroker kafka, String topic, int partitions) {
    try (KafkaProducer<byte[], byte[]> producer =
        new KafkaProducer<>(
            kafka.producerConfig(), new ByteArraySerializer(), new ByteArraySerializer())) {
      for (int i = 0; i < 3; i++) {
        for (int p = 0; p < partitions; p++) {
          producer.send(new ProducerRecord<>(topic, p, null, new byte[] {(byte) i}));
        }
      }
      producer.flush();
    }
  }

  private static int[] ints(String csv) {
    return java.util.Arrays.stream(csv.split(",")).mapToInt(Integer::parseInt).toArray();
  }
}
