package dev.courier.retry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.courier.core.CourierHeaders;
import dev.courier.schema.AvroDeserializationException;
import dev.courier.schema.KafkaAvroDeserializer;
import dev.courier.schema.KafkaAvroSerializer;
import dev.courier.testkit.CourierInfra;
import dev.courier.testkit.CourierInfraTest;
import dev.courier.testkit.KafkaBroker;
import dev.courier.testkit.TestDatabase;
import dev.courier.testkit.UniqueNames;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.apache.avro.Schema;
import org.apache.avro.SchemaBuilder;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.generic.GenericRecordBuilder;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The ladder as it is deployed: slow handlers, rebalances while they run, hung calls, shutdowns
 * with a backlog, a handler's {@link Error}, hostile headers and a lowered attempt cap, each on a
 * real broker.
 */
@CourierInfraTest
class RetryResilienceIT {

  private static final Duration TIMEOUT = Duration.ofSeconds(90);

  private KafkaBroker kafka;
  private TestDatabase db;

  /** The group of the consumer made last, whose ladder a test reads. */
  private String group;

  private final ExecutorService threads = Executors.newCachedThreadPool();
  private final Map<String, AtomicInteger> calls = new ConcurrentHashMap<>();

  @BeforeEach
  void setUp(KafkaBroker kafka, TestDatabase db) {
    this.kafka = kafka;
    this.db = db;
  }

  @AfterEach
  void tearDown() {
    threads.shutdownNow();
  }

  @Test
  void malformedCourierHeadersGoToTheDltNamedAndTheRecordsBehindThemAreHandled() throws Exception {
    String topic = topic(1);
    send(topic, 0, "op-1", Map.of());
    send(topic, 0, "op-2", Map.of(CourierHeaders.ATTEMPT, "abc"));
    send(topic, 0, "op-3", Map.of(CourierHeaders.ATTEMPT, "0"));
    send(topic, 0, "op-4", Map.of(CourierHeaders.FIRST_FAILURE, "banana"));
    ProducerRecord<byte[], byte[]> binary = record(topic, 0, "op-5");
    binary.headers().add(CourierHeaders.DEADLINE, new byte[] {(byte) 0xc3, 0x28});
    sendRaw(binary);
    send(topic, 0, "op-6", Map.of());
    RetryingConsumer<String, String> consumer = consumer(topic, Map.of(), counting(r -> {}));
    RetryProgress p =
        Running.until(consumer, x -> x.succeeded() >= 2 && x.deadLettered() >= 4, TIMEOUT);
    assertThat(p.succeeded()).isEqualTo(2);
    assertThat(calls.keySet()).containsExactlyInAnyOrder("op-1", "op-6");
    List<DltRecord> dead = replayer().list(dlt(topic), DltFilter.all());
    assertThat(dead)
        .extracting(DltRecord::reason)
        .containsOnly(Decision.DeadLetter.MALFORMED)
        .hasSize(4);
    assertThat(dead)
        .extracting(d -> d.operationKey().orElse("-") + " " + d.message())
        .containsExactly(
            "op-2 header courier.attempt='abc': not a whole number",
            "op-3 header courier.attempt='0': must be in [1, 1000]",
            "op-4 header courier.first.failure.at='banana': not epoch milliseconds or an"
                + " ISO-8601 instant",
            "op-5 header courier.deadline='\\xc3(': not UTF-8 text");
    assertThat(dead).allSatisfy(d -> assertThat(d.originalTopic()).isEqualTo(topic));
    assertThat(dead).extracting(DltRecord::originalOffset).containsExactly(1L, 2L, 3L, 4L);
  }

  /**
   * A value Courier's Avro deserializer cannot read, here ten bytes that declare a 1.5 GB string,
   * is the record's fault: parked in the DLT at once with the reason and its bytes as they came,
   * and the record behind it is handled. The string is never allocated, so no worker runs out of
   * heap.
   */
  @Test
  void anAvroValueThatCannotBeReadGoesToTheDltAndTheRecordBehindItIsHandled(CourierInfra infra)
      throws Exception {
    String topic = topic(1);
    Map<String, Object> serde = Map.of("schema.registry.url", infra.schemaRegistry().url());
    Schema schema =
        SchemaBuilder.record("Credit")
            .namespace("dev.courier.retry.test")
            .fields()
            .requiredString("account")
            .requiredLong("cents")
            .endRecord();
    GenericRecord credit =
        new GenericRecordBuilder(schema).set("account", "acc-1").set("cents", 10L).build();
    byte[] good;
    try (KafkaAvroSerializer serializer = new KafkaAvroSerializer()) {
      serializer.configure(serde, false);
      good = serializer.serialize(topic, credit);
    }
    // The good record's header (magic byte and schema id), then a string length of 1.5e9.
    byte[] hostile = Arrays.copyOf(good, 10);
    long zigZag = 1_500_000_000L << 1;
    for (int i = 5; i < 10; i++, zigZag >>>= 7) {
      hostile[i] = (byte) (i < 9 ? (zigZag & 0x7f) | 0x80 : zigZag);
    }
    ProducerRecord<byte[], byte[]> bad = record(topic, 0, "op-1");
    sendRaw(new ProducerRecord<>(topic, 0, bad.key(), hostile, bad.headers()));
    ProducerRecord<byte[], byte[]> fine = record(topic, 0, "op-2");
    sendRaw(new ProducerRecord<>(topic, 0, fine.key(), good, fine.headers()));

    Map<String, GenericRecord> handled = new ConcurrentHashMap<>();
    KafkaAvroDeserializer values = new KafkaAvroDeserializer();
    values.configure(serde, false);
    Map<String, Object> settings = new HashMap<>();
    settings.put(RetryConfig.BOOTSTRAP_SERVERS, kafka.bootstrapServers());
    group = UniqueNames.group("res-avro");
    settings.put(RetryConfig.GROUP_ID, group);
    settings.put(RetryConfig.TOPIC, topic);
    RetryingConsumer<String, Object> consumer =
        RetryingConsumer.builder(settings, new StringDeserializer(), values)
            .handler(
                r ->
                    handled.put(
                        CourierHeaders.text(r.headers(), CourierHeaders.ID).orElseThrow(),
                        (GenericRecord) r.value()))
            .meterRegistry(new SimpleMeterRegistry())
            .build();
    RetryProgress p =
        Running.until(consumer, x -> x.succeeded() >= 1 && x.deadLettered() >= 1, TIMEOUT);

    assertThat(p.succeeded()).isEqualTo(1);
    assertThat(handled).containsOnlyKeys("op-2");
    assertThat(handled.get("op-2").get("cents")).isEqualTo(10L);
    List<DltRecord> dead = replayer().list(dlt(topic), DltFilter.all());
    assertThat(dead).hasSize(1);
    DltRecord d = dead.get(0);
    assertThat(d.reason()).isEqualTo("permanent");
    assertThat(d.attempts()).isEqualTo(1);
    assertThat(d.operationKey()).contains("op-1");
    assertThat(d.originalTopic()).isEqualTo(topic);
    assertThat(d.originalOffset()).isZero();
    assertThat(d.value()).isEqualTo(hostile);
    assertThat(d.exceptionClass()).isEqualTo(AvroDeserializationException.class.getName());
    assertThat(d.message()).contains("TRUNCATED").contains("the data ended before a complete");
  }

  @Test
  void workLongerThanMaxPollIntervalKeepsTheMembershipAndARebalanceRepeatsNothing()
      throws Exception {
    String topic = topic(2);
    int records = 16;
    for (int i = 0; i < records; i++) {
      send(topic, i % 2, "op-" + i, Map.of());
    }
    // 16 calls of 400 ms are far beyond a poll interval of 3 s.
    Map<String, Object> tight =
        Map.of("kafka.max.poll.interval.ms", "3000", RetryConfig.HANDLER_TIMEOUT_MS, "2000");
    String group = UniqueNames.group("slow");
    SimpleMeterRegistry meters = new SimpleMeterRegistry();
    RecordHandler<String, String> slow = counting(r -> work(Duration.ofMillis(400)));
    RetryingConsumer<String, String> first = consumer(topic, group, tight, slow, meters);
    Future<?> a = threads.submit(first::run);
    await().atMost(TIMEOUT).until(() -> total() >= 3);
    // A second member joins while the first is in the middle of a call: a rebalance mid-batch.
    RetryingConsumer<String, String> second = consumer(topic, group, tight, slow, meters);
    Future<?> b = threads.submit(second::run);
    await().atMost(TIMEOUT).until(() -> committed(group, topic, 2) == records);
    first.close();
    second.close();
    a.get(30, TimeUnit.SECONDS);
    b.get(30, TimeUnit.SECONDS);
    assertThat(calls).hasSize(records);
    assertThat(calls.values()).as("each record handled once").allMatch(n -> n.get() == 1);
    assertThat(meters.get("courier.retry.commits.refused").counters())
        .allMatch(c -> c.count() == 0);
    assertThat(replayer().list(dlt(topic), DltFilter.all())).isEmpty();
  }

  @Test
  void aCallThatHangsIsAbandonedAtItsLimitAndRetried() throws Exception {
    String topic = topic(1);
    send(topic, 0, "op-hang", Map.of());
    CountDownLatch hung = new CountDownLatch(1);
    SimpleMeterRegistry meters = new SimpleMeterRegistry();
    RetryingConsumer<String, String> consumer =
        consumer(
            topic,
            UniqueNames.group("hang"),
            Map.of(RetryConfig.HANDLER_TIMEOUT_MS, "1000"),
            counting(
                r -> {
                  if (hung.getCount() > 0) {
                    hung.countDown();
                    new CountDownLatch(1).await(); // hangs until interrupted
                  }
                }),
            meters);
    RetryProgress p = Running.until(consumer, x -> x.succeeded() >= 1, TIMEOUT);
    assertThat(p.retried()).isEqualTo(1);
    assertThat(calls.get("op-hang").get()).isEqualTo(2);
    assertThat(meters.get("courier.retry.handler.timeouts").counter().count()).isEqualTo(1);
  }

  @Test
  void aCallThatIgnoresItsInterruptHoldsBackEveryOtherCallUntilItEnds() throws Exception {
    String topic = topic(1);
    send(topic, 0, "op-deaf", Map.of());
    send(topic, 0, "op-next", Map.of());
    CountDownLatch release = new CountDownLatch(1);
    AtomicInteger running = new AtomicInteger();
    AtomicInteger mostAtOnce = new AtomicInteger();
    AtomicBoolean reported = new AtomicBoolean();
    RetryingConsumer<String, String> consumer =
        consumer(
            topic,
            UniqueNames.group("deaf"),
            Map.of(RetryConfig.HANDLER_TIMEOUT_MS, "1000"),
            counting(
                r -> {
                  mostAtOnce.accumulateAndGet(running.incrementAndGet(), Math::max);
                  try {
                    boolean first = calls.get("op-deaf").get() == 1 && r.offset() == 0;
                    while (first && release.getCount() > 0) {
                      try {
                        release.await(); // ignores interrupts, as a badly written handler might
                      } catch (InterruptedException ignored) {
                        // keep going
                      }
                    }
                  } finally {
                    running.decrementAndGet();
                  }
                }),
            new SimpleMeterRegistry());
    RetryProgress p =
        Running.until(
            consumer,
            x -> {
              if (consumer.problem().orElse("").contains("still runs, ignoring its interrupt")) {
                reported.set(true);
                release.countDown();
              }
              return x.succeeded() >= 2;
            },
            TIMEOUT);
    assertThat(reported).as("/health named the call that still runs").isTrue();
    assertThat(mostAtOnce).as("no call ran beside the abandoned one").hasValue(1);
    assertThat(p.retried()).isEqualTo(1);
    assertThat(calls.get("op-deaf")).hasValue(2);
    assertThat(calls.get("op-next")).hasValue(1);
    assertThat(consumer.problem()).isEmpty();
  }

  @Test
  void closeWithABacklogFinishesTheCallInFlightCommitsAndLeavesAtOnce() throws Exception {
    String topic = topic(1);
    for (int i = 0; i < 12; i++) {
      send(topic, 0, "op-" + i, Map.of());
    }
    String group = UniqueNames.group("term");
    RecordHandler<String, String> slow = counting(r -> work(Duration.ofMillis(300)));
    Map<String, Object> bounded = Map.of(RetryConfig.SHUTDOWN_TIMEOUT_MS, "2000");
    RetryingConsumer<String, String> consumer =
        consumer(topic, group, bounded, slow, new SimpleMeterRegistry());
    Future<?> loop = threads.submit(consumer::run);
    await().atMost(TIMEOUT).until(() -> total() >= 3);
    long closing = System.nanoTime();
    consumer.close();
    loop.get(30, TimeUnit.SECONDS);
    Duration took = Duration.ofNanos(System.nanoTime() - closing);
    int handled = total();
    assertThat(took).as("bounded by the shutdown timeout").isLessThan(Duration.ofSeconds(8));
    assertThat(members(group)).as("left the group at once").isZero();
    assertThat(committed(group, topic, 1)).as("what is done is committed").isEqualTo(handled);
    // The next worker starts from the committed position and redoes nothing.
    Running.until(
        consumer(topic, group, bounded, slow, new SimpleMeterRegistry()),
        x -> total() >= 12,
        TIMEOUT);
    assertThat(calls.values()).allMatch(n -> n.get() == 1);
  }

  @Test
  void anErrorFromTheHandlerStopsTheLoopWithWhatIsDoneCommitted() throws Exception {
    String topic = topic(1);
    for (int i = 0; i < 5; i++) {
      send(topic, 0, "op-" + i, Map.of());
    }
    String group = UniqueNames.group("error");
    RetryingConsumer<String, String> consumer =
        consumer(
            topic,
            group,
            Map.of(),
            counting(
                r -> {
                  if (r.offset() == 3) {
                    throw new NoClassDefFoundError("com/example/Missing");
                  }
                }),
            new SimpleMeterRegistry());
    assertThatThrownBy(consumer::run)
        .isInstanceOf(NoClassDefFoundError.class)
        .hasMessageContaining("com/example/Missing");
    assertThat(committed(group, topic, 1)).isEqualTo(3);
    assertThat(replayer().list(dlt(topic), DltFilter.all())).isEmpty();
    assertThat(members(group)).isZero();
  }

  @Test
  void recordsAboveALoweredCapAreDrainedNotStranded() throws Exception {
    String topic = topic(1);
    String cap = UniqueNames.group("cap");
    RetryTopics before = new RetryTopics(topic, cap, 3);
    // An earlier worker ran with retry.max.attempts=4 and left records waiting in tiers 1-3.
    kafka.createTopic(before.tier(2), 1);
    kafka.createTopic(before.tier(3), 1);
    String later = String.valueOf(Instant.now().plusSeconds(3600).toEpochMilli());
    String soon = String.valueOf(Instant.now().plusMillis(300).toEpochMilli());
    // Now the cap is 2: tier 1 stays (attempt 2 is the last), tiers 2 and 3 are above it.
    Map<String, Object> capTwo = Map.of(RetryConfig.MAX_ATTEMPTS, 2);
    RetryingConsumer<String, String> consumer =
        consumer(topic, cap, capTwo, counting(r -> {}), new SimpleMeterRegistry());
    assertThat(consumer.subscribed()).isEmpty(); // built, not started: nothing touched yet
    consumer.start();
    assertThat(consumer.subscribed())
        .containsExactly(topic, before.tier(1), before.tier(2), before.tier(3));
    send(before.tier(1), 0, "op-t1", waiting(topic, 2, soon));
    send(before.tier(2), 0, "op-t2", waiting(topic, 3, later));
    send(before.tier(3), 0, "op-t3", waiting(topic, 4, later));
    RetryProgress p =
        Running.until(consumer, x -> x.succeeded() >= 1 && x.deadLettered() >= 2, TIMEOUT);
    assertThat(p.deadLettered()).isEqualTo(2);
    assertThat(calls.keySet()).containsExactly("op-t1");
    List<DltRecord> dead = replayer().list(dlt(topic), DltFilter.all());
    assertThat(dead).extracting(DltRecord::reason).containsOnly(Decision.DeadLetter.ATTEMPTS);
    assertThat(dead)
        .extracting(d -> d.operationKey().orElseThrow())
        .containsExactlyInAnyOrder("op-t2", "op-t3");
    assertThat(dead).allSatisfy(d -> assertThat(d.message()).contains("retry.max.attempts=2"));
  }

  private static Map<String, String> waiting(String topic, int attempt, String due) {
    return Map.of(
        CourierHeaders.ORIGINAL_TOPIC,
        topic,
        CourierHeaders.ORIGINAL_PARTITION,
        "0",
        CourierHeaders.ORIGINAL_OFFSET,
        "0",
        CourierHeaders.ATTEMPT,
        String.valueOf(attempt),
        CourierHeaders.FIRST_FAILURE,
        String.valueOf(Instant.now().toEpochMilli()),
        CourierHeaders.DUE,
        due);
  }

  /** Simulated work in a handler: the time the call takes is the point. */
  private static void work(Duration d) {
    LockSupport.parkNanos(d.toNanos());
  }

  private RecordHandler<String, String> counting(RecordHandler<String, String> then) {
    return r -> {
      String key = CourierHeaders.text(r.headers(), CourierHeaders.ID).orElseThrow();
      calls.computeIfAbsent(key, k -> new AtomicInteger()).incrementAndGet();
      then.handle(r);
    };
  }

  /** The DLT of the group the last consumer made here reads in. */
  private String dlt(String topic) {
    return new RetryTopics(topic, group, 1).deadLetter();
  }

  private int total() {
    return calls.values().stream().mapToInt(AtomicInteger::get).sum();
  }

  private String topic(int partitions) {
    String topic = UniqueNames.topic("resilience");
    kafka.createTopic(topic, partitions);
    return topic;
  }

  private RetryingConsumer<String, String> consumer(
      String topic, Map<String, Object> extra, RecordHandler<String, String> handler) {
    return consumer(topic, UniqueNames.group("res"), extra, handler, new SimpleMeterRegistry());
  }

  private RetryingConsumer<String, String> consumer(
      String topic,
      String group,
      Map<String, Object> extra,
      RecordHandler<String, String> handler,
      SimpleMeterRegistry meters) {
    this.group = group;
    Map<String, Object> settings = new HashMap<>();
    settings.put(RetryConfig.BOOTSTRAP_SERVERS, kafka.bootstrapServers());
    settings.put(RetryConfig.GROUP_ID, group);
    settings.put(RetryConfig.TOPIC, topic);
    settings.put(RetryConfig.MAX_ATTEMPTS, 3);
    settings.put(RetryConfig.BACKOFF_TYPE, "fixed");
    settings.put(RetryConfig.BACKOFF_INITIAL_MS, 300);
    settings.put(RetryConfig.BACKOFF_MAX_MS, 300);
    settings.putAll(extra);
    return RetryingConsumer.builder(settings, new StringDeserializer(), new StringDeserializer())
        .handler(handler)
        .meterRegistry(meters)
        .build();
  }

  private ProducerRecord<byte[], byte[]> record(String topic, int partition, String op) {
    ProducerRecord<byte[], byte[]> r =
        new ProducerRecord<>(
            topic,
            partition,
            ("acc-" + op).getBytes(StandardCharsets.UTF_8),
            (op + ":10").getBytes(StandardCharsets.UTF_8));
    r.headers().add(CourierHeaders.ID, op.getBytes(StandardCharsets.UTF_8));
    return r;
  }

  private void send(String topic, int partition, String op, Map<String, String> headers)
      throws Exception {
    ProducerRecord<byte[], byte[]> r = record(topic, partition, op);
    headers.forEach((k, v) -> r.headers().add(k, v.getBytes(StandardCharsets.UTF_8)));
    sendRaw(r);
  }

  private void sendRaw(ProducerRecord<byte[], byte[]> r) throws Exception {
    try (KafkaProducer<byte[], byte[]> producer =
        new KafkaProducer<>(
            kafka.producerConfig(), new ByteArraySerializer(), new ByteArraySerializer())) {
      producer.send(r).get(30, TimeUnit.SECONDS);
    }
  }

  private long committed(String group, String topic, int partitions) {
    long sum = 0;
    for (int p = 0; p < partitions; p++) {
      sum += kafka.committed(group, topic, p);
    }
    return sum;
  }

  private int members(String group) {
    return kafka.members(group);
  }

  private DltReplayer replayer() {
    return DltReplayer.create(
        Map.of(
            "bootstrap.servers",
            kafka.bootstrapServers(),
            DltReplayerConfig.REPLAY_RATE_PER_SECOND,
            50),
        db.dataSource());
  }
}
