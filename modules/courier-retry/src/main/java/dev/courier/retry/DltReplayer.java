package dev.courier.retry;

import dev.courier.core.CourierHeaders;
import dev.courier.core.internal.Traces;
import dev.courier.retry.internal.ReplayHeaders;
import dev.courier.retry.internal.ReplayTracing;
import dev.courier.retry.internal.RetryMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Metrics;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.context.Scope;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.locks.LockSupport;
import javax.sql.DataSource;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The operator's view of a dead-letter topic: list and filter, inspect one, park what must never
 * run, and replay a selection to the main topic (or a chosen tier) with the original key, value and
 * headers, so each record re-enters through the consumer's idempotency check. A replay is a plan
 * first (the dry run), needs a person and a reason, is rate-limited and leaves an audit entry
 * naming every record and how it went.
 */
public final class DltReplayer implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(DltReplayer.class);

  /** A dry run: the records a replay would send, where, and those left out as parked. */
  public record ReplayPlan(
      String dltTopic, ReplayTarget target, List<DltRecord> records, List<DltRecord> parked) {
    public ReplayPlan {
      records = List.copyOf(records);
      parked = List.copyOf(parked);
    }

    public String render() {
      StringBuilder out =
          new StringBuilder(
              "Plan: replay "
                  + records.size()
                  + " record(s) from "
                  + dltTopic
                  + " to "
                  + target.describe()
                  + System.lineSeparator());
      records.forEach(r -> out.append("  ").append(r.render()).append(System.lineSeparator()));
      parked.forEach(
          r ->
              out.append("  PARKED, not replayed: ")
                  .append(r.coordinates())
                  .append(System.lineSeparator()));
      return out.toString();
    }
  }

  /**
   * What a replay did: its audit entry, the records sent, and those skipped because someone parked
   * them after the plan was made.
   */
  public record ReplayResult(
      long auditId, int sent, List<String> coordinates, List<String> skippedParked) {
    public ReplayResult {
      coordinates = List.copyOf(coordinates);
      skippedParked = List.copyOf(skippedParked);
    }
  }

  private final DltReplayerConfig config;
  private final DltStore store;
  private final Clock clock;
  private final KafkaProducer<byte[], byte[]> producer;
  private final RetryMetrics.Replays meters;
  private final ReplayTracing tracing;

  private DltReplayer(
      DltReplayerConfig config,
      DltStore store,
      KafkaProducer<byte[], byte[]> producer,
      MeterRegistry registry,
      Clock clock,
      OpenTelemetry openTelemetry) {
    this.tracing = new ReplayTracing(Traces.of(openTelemetry));
    this.config = config;
    this.store = store;
    this.clock = clock;
    this.producer = producer;
    this.meters = RetryMetrics.Replays.of(registry);
  }

  /**
   * A replayer for the cluster these {@link DltReplayerConfig} settings name ({@code
   * bootstrap.servers}, {@code kafka.*}, {@code retry.replay.rate.per.second}), with its audit log
   * in {@code dataSource} (null: read only, see {@link #auditable()}).
   *
   * @throws org.apache.kafka.common.config.ConfigException naming a bad setting
   */
  public static DltReplayer create(Map<String, ?> settings, DataSource dataSource) {
    return create(settings, dataSource, Metrics.globalRegistry, Clock.systemUTC());
  }

  /** As {@link #create(Map, DataSource)}, with the registry for its meters and its clock. */
  public static DltReplayer create(
      Map<String, ?> settings, DataSource dataSource, MeterRegistry registry, Clock clock) {
    return create(settings, dataSource, registry, clock, null);
  }

  /**
   * As {@link #create(Map, DataSource, MeterRegistry, Clock)}, tracing each replayed record with a
   * {@code replay} span linked to its dead letter's trace (null: no span; the record keeps the dead
   * letter's {@code traceparent}).
   */
  public static DltReplayer create(
      Map<String, ?> settings,
      DataSource dataSource,
      MeterRegistry registry,
      Clock clock,
      OpenTelemetry openTelemetry) {
    DltReplayerConfig config = new DltReplayerConfig(settings);
    Map<String, Object> pc = config.clients().producer();
    pc.put(ProducerConfig.ACKS_CONFIG, "all");
    pc.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
    return new DltReplayer(
        config,
        dataSource == null ? null : new DltStore(dataSource),
        new KafkaProducer<>(pc, new ByteArraySerializer(), new ByteArraySerializer()),
        registry,
        clock,
        openTelemetry);
  }

  /** Every dead letter up to the topic's current end that the filter keeps, oldest first. */
  public List<DltRecord> list(String dltTopic, DltFilter filter) {
    try (KafkaConsumer<byte[], byte[]> consumer = reader()) {
      List<TopicPartition> parts = new ArrayList<>();
      consumer
          .partitionsFor(dltTopic)
          .forEach(p -> parts.add(new TopicPartition(dltTopic, p.partition())));
      consumer.assign(parts);
      consumer.seekToBeginning(parts);
      return readUpTo(consumer, consumer.endOffsets(parts), filter::test);
    }
  }

  /** One dead letter, read from its own offset. */
  public Optional<DltRecord> inspect(String dltTopic, int partition, long offset) {
    TopicPartition tp = new TopicPartition(dltTopic, partition);
    try (KafkaConsumer<byte[], byte[]> consumer = reader()) {
      consumer.assign(List.of(tp));
      consumer.seek(tp, offset);
      long end = Math.min(offset + 1, consumer.endOffsets(List.of(tp)).get(tp));
      return readUpTo(consumer, Map.of(tp, end), r -> r.offset() == offset).stream().findFirst();
    }
  }

  private KafkaConsumer<byte[], byte[]> reader() {
    Map<String, Object> cc = config.clients().consumer();
    cc.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    cc.remove(ConsumerConfig.GROUP_ID_CONFIG);
    // Key order writes its dead letters in transactions: one aborted was never parked.
    cc.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    return new KafkaConsumer<>(cc, new ByteArrayDeserializer(), new ByteArrayDeserializer());
  }

  /** Reads the assigned partitions up to {@code ends}, keeping what {@code keep} accepts. */
  private static List<DltRecord> readUpTo(
      KafkaConsumer<byte[], byte[]> consumer,
      Map<TopicPartition, Long> ends,
      java.util.function.Predicate<DltRecord> keep) {
    List<DltRecord> found = new ArrayList<>();
    Instant deadline = Instant.now().plusSeconds(60);
    while (ends.keySet().stream().anyMatch(tp -> consumer.position(tp) < ends.get(tp))) {
      if (Instant.now().isAfter(deadline)) {
        throw new IllegalStateException("could not read " + ends.keySet() + " within 60 s");
      }
      for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
        if (r.offset() < ends.get(new TopicPartition(r.topic(), r.partition()))) {
          DltRecord d = DltRecord.from(r);
          if (keep.test(d)) {
            found.add(d);
          }
        }
      }
    }
    return found;
  }

  /**
   * The dry run of a replay to the original topics ({@code target} empty) or to a topic.
   *
   * @deprecated a replay goes to the group that failed each record unless told otherwise: {@link
   *     #plan(String, DltFilter, ReplayTarget)} with {@link ReplayTarget#originalTopics()} for an
   *     empty target, {@link ReplayTarget#topic(String)} for a topic. Removed in 0.3.0.
   */
  @Deprecated(since = "0.1.0", forRemoval = true)
  public ReplayPlan plan(String dltTopic, DltFilter filter, Optional<String> target) {
    return plan(
        dltTopic,
        filter,
        target.<ReplayTarget>map(ReplayTarget::topic).orElse(ReplayTarget.originalTopics()));
  }

  /**
   * The dry run: what {@link #replay} would send, parked records left out (none known without an
   * audit log: {@link #auditable()}).
   */
  public ReplayPlan plan(String dltTopic, DltFilter filter, ReplayTarget target) {
    Set<String> parked = store == null ? Set.of() : store.parked(dltTopic);
    List<DltRecord> send = new ArrayList<>();
    List<DltRecord> skip = new ArrayList<>();
    for (DltRecord r : list(dltTopic, filter)) {
      (parked.contains(r.partition() + "@" + r.offset()) ? skip : send).add(r);
    }
    return new ReplayPlan(dltTopic, target, send, skip);
  }

  /** Sends a plan's records, at most the configured rate, audited. */
  public ReplayResult replay(ReplayPlan plan, String actor, String reason) {
    DltStore store = audited("replay");
    requireText(actor, "actor");
    requireText(reason, "a reason");
    long id =
        store.begin(
            clock.instant(),
            actor,
            reason,
            "replay",
            plan.dltTopic(),
            plan.target().describe(),
            plan.records());
    RetryBudget rate = RetryBudget.of(1, config.ratePerSecond(), clock);
    List<String> sent = new ArrayList<>();
    List<String> skipped = new ArrayList<>();
    try {
      for (DltRecord r : plan.records()) {
        // The plan may be old: a record parked since then must still not run.
        if (store.isParked(r)) {
          skipped.add(r.coordinates());
          LOG.warn("{} was parked after the plan was made; not replayed", r.coordinates());
          continue;
        }
        while (!rate.tryAcquire()) {
          // Rate limiting is the point here: wait for the next token.
          LockSupport.parkNanos(rate.untilAvailable().toNanos());
        }
        ProducerRecord<byte[], byte[]> replayed = toReplay(r, plan.target());
        Span span = tracing.start(replayed, r, actor, reason, id);
        try (Scope ignored = span.getSpanContext().isValid() ? span.makeCurrent() : Scope.noop()) {
          producer.send(replayed).get();
        } catch (ExecutionException | RuntimeException e) {
          Traces.failed(span, e);
          throw e;
        } finally {
          span.end();
        }
        sent.add(r.coordinates());
        meters.replayed().increment();
      }
      store.finish(
          id,
          "replayed "
              + sent.size()
              + (skipped.isEmpty() ? "" : "; skipped " + skipped + " (parked after the plan)"));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      store.finish(id, "interrupted after " + sent.size() + ": " + sent);
      throw new IllegalStateException("replay interrupted after " + sent.size() + " record(s)", e);
    } catch (ExecutionException | RuntimeException e) {
      store.finish(id, "failed after " + sent.size() + " " + sent + ": " + e.getMessage());
      throw new IllegalStateException(
          "replay failed after " + sent.size() + " record(s): " + e.getMessage(), e);
    }
    LOG.info(
        "replayed {} record(s) from {} by {} ({}); audit entry {}",
        sent.size(),
        plan.dltTopic(),
        actor,
        reason,
        id);
    return new ReplayResult(id, sent.size(), sent, skipped);
  }

  /**
   * Whether this replayer has an audit log (made with a {@code DataSource}): without one it lists,
   * inspects and plans (knowing no parked records), and refuses every change.
   */
  public boolean auditable() {
    return store != null;
  }

  private DltStore audited(String what) {
    if (store == null) {
      throw new IllegalStateException(
          "cannot " + what + " without an audit log: create the replayer with a DataSource");
    }
    return store;
  }

  /** Marks a dead letter as never to be replayed (audited). */
  public void park(DltRecord record, String actor, String reason) {
    DltStore store = audited("park");
    requireText(actor, "actor");
    requireText(reason, "a reason");
    long id =
        store.begin(
            clock.instant(), actor, reason, "park", record.dltTopic(), null, List.of(record));
    store.park(record, clock.instant(), actor, reason);
    store.finish(id, "parked");
    meters.parked().increment();
  }

  /** The audit entries of a DLT in words (oldest first). */
  public List<String> auditTrail(String dltTopic) {
    return audited("read the audit trail").entries(dltTopic).stream()
        .map(
            e ->
                e.id()
                    + " "
                    + e.at()
                    + " "
                    + e.actor()
                    + " "
                    + e.action()
                    + " ("
                    + e.reason()
                    + ") -> "
                    + e.outcome()
                    + " "
                    + e.records())
        .toList();
  }

  /**
   * The value of a letter that travelled without it, read from the original coordinates.
   *
   * @throws IllegalStateException when retention or compaction removed the original: the replay
   *     stops there, audited, and parking that letter lets the rest go
   */
  private byte[] originalValue(DltRecord r) {
    TopicPartition tp = new TopicPartition(r.originalTopic(), r.originalPartition());
    String gone =
        r.coordinates()
            + " travelled without its value and the original "
            + tp
            + "@"
            + r.originalOffset()
            + " is gone";
    try (KafkaConsumer<byte[], byte[]> consumer = reader()) {
      consumer.assign(List.of(tp));
      long first = consumer.beginningOffsets(List.of(tp)).get(tp);
      if (r.originalOffset() < first) {
        throw new IllegalStateException(gone + " (the partition now begins at " + first + ")");
      }
      consumer.seek(tp, r.originalOffset());
      long end = Math.min(r.originalOffset() + 1, consumer.endOffsets(List.of(tp)).get(tp));
      return readUpTo(consumer, Map.of(tp, end), o -> o.offset() == r.originalOffset()).stream()
          .findFirst()
          .map(DltRecord::value)
          .orElseThrow(() -> new IllegalStateException(gone + " (compacted away)"));
    }
  }

  private ProducerRecord<byte[], byte[]> toReplay(DltRecord r, ReplayTarget target) {
    RecordHeaders headers = new RecordHeaders();
    for (Header h : r.ownHeaders()) {
      headers.add(h.key(), h.value());
    }
    headers.add(CourierHeaders.REPLAY_OF, r.coordinates().getBytes(StandardCharsets.UTF_8));
    byte[] value = r.valueOmitted() ? originalValue(r) : r.value();
    if (target instanceof ReplayTarget.OriginalTopics || r.group().isEmpty()) {
      return new ProducerRecord<>(
          r.originalTopic(), r.originalPartition(), null, r.key(), value, headers);
    }
    RetryTopics ladder = new RetryTopics(r.originalTopic(), r.group().get(), 1);
    String topic = target instanceof ReplayTarget.Topic chosen ? chosen.name() : ladder.tier(1);
    if (ladder.tierOf(topic) > 0) {
      // A tier of the letter's own ladder: the record is read as that group's retry of the
      // original, due now, with its attempts afresh.
      ReplayHeaders.ladder(headers, r, ladder.group(), clock.instant());
      return new ProducerRecord<>(topic, r.originalPartition(), null, r.key(), value, headers);
    }
    return new ProducerRecord<>(topic, null, null, r.key(), value, headers);
  }

  private static void requireText(String value, String name) {
    if (value == null || value.isBlank()) {
      throw new IllegalArgumentException(name + " is required");
    }
  }

  @Override
  public void close() {
    producer.close();
  }
}
