package dev.courier.retry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.courier.core.CourierHeaders;
import dev.courier.testkit.CourierInfraTest;
import dev.courier.testkit.KafkaProcess;
import dev.courier.testkit.UniqueNames;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The ladder's broker dying or freezing at the worst moment, on a broker process of the class's
 * own: under a forward (gone longer than {@code delivery.timeout.ms}: the record is not committed
 * and comes again) and in the middle of a revocation (frozen: the commit is tried again until it
 * goes through, so the rebalance repeats nothing).
 */
@CourierInfraTest
class BrokerFaultsIT {

  private static final Duration TIMEOUT = Duration.ofSeconds(90);

  private static KafkaProcess kafka;

  private final Map<String, AtomicInteger> calls = new ConcurrentHashMap<>();
  private final ExecutorService threads = Executors.newCachedThreadPool();

  @FunctionalInterface
  private interface Work {
    void on(String op) throws Exception;
  }

  @BeforeAll
  static void startBroker() {
    kafka = KafkaProcess.plaintext().start();
  }

  @AfterAll
  static void stopBroker() {
    kafka.close();
  }

  @AfterEach
  void tearDown() {
    threads.shutdownNow();
  }

  @Test
  void aBrokerGoneLongerThanTheDeliveryTimeoutLeavesTheRecordToComeAgain() throws Exception {
    String topic = UniqueNames.topic("gone");
    String group = UniqueNames.group("gone");
    kafka.createTopic(topic, 1);
    send(topic, 0, "op-1");
    AtomicBoolean killed = new AtomicBoolean();
    Map<String, Object> settings = settings(topic, group);
    settings.put("kafka.delivery.timeout.ms", 3000);
    settings.put("kafka.max.block.ms", 3000);
    settings.put("kafka.linger.ms", 0);
    RetryingConsumer<String, String> consumer =
        consumer(
            settings,
            new SimpleMeterRegistry(),
            op -> {
              if (killed.compareAndSet(false, true)) {
                kafka.kill(); // the forward of this failure meets no broker
                throw new IOException("the endpoint timed out");
              }
            });
    Future<?> loop = threads.submit(consumer::run);
    await().atMost(TIMEOUT).until(() -> consumer.problem().orElse("").contains("cannot forward"));
    assertThat(consumer.problem().orElseThrow())
        .contains(topic + "-0@0")
        .contains("it is not committed and comes again");
    kafka.start();
    await().atMost(TIMEOUT).until(() -> consumer.progress().succeeded() >= 1);
    assertThat(calls.get("op-1").get())
        .as("called again once the broker was back: the record was not lost")
        .isGreaterThanOrEqualTo(2);
    consumer.close();
    loop.get(30, TimeUnit.SECONDS);
    assertThat(kafka.broker().committed(group, topic, 0)).isLessThanOrEqualTo(1);
  }

  @Test
  void aCommitThatDoesNotGoThroughDuringARevocationIsTriedAgainAndNothingRepeats()
      throws Exception {
    String topic = UniqueNames.topic("revoke");
    String group = UniqueNames.group("revoke");
    kafka.createTopic(topic, 2);
    for (int i = 0; i < 6; i++) {
      send(topic, i % 2, "op-" + i);
    }
    CountDownLatch holding = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    SimpleMeterRegistry meters = new SimpleMeterRegistry();
    RetryingConsumer<String, String> first =
        consumer(
            settings(topic, group),
            meters,
            op -> {
              if (op.equals("op-0")) {
                holding.countDown();
                release.await(); // in flight when the second member joins
              }
            });
    Future<?> a = threads.submit(first::run);
    await().atMost(TIMEOUT).until(() -> holding.getCount() == 0 || a.isDone());
    assertThat(a).isNotDone();
    RetryingConsumer<String, String> second =
        consumer(settings(topic, group), new SimpleMeterRegistry(), op -> {});
    Future<?> b = threads.submit(second::run);
    // The first member is in its revocation, waiting for op-0's call before it commits.
    await().atMost(TIMEOUT).until(BrokerFaultsIT::aRevocationWaitsForACall);
    kafka.freeze();
    try {
      release.countDown();
      // Two attempts that did not go through: the revocation tried again after a failure.
      await()
          .atMost(TIMEOUT)
          .until(() -> meters.get("courier.retry.commit.failures").counter().count() >= 2);
    } finally {
      kafka.thaw();
    }
    await()
        .atMost(TIMEOUT)
        .until(
            () ->
                kafka.broker().committed(group, topic, 0) == 3
                    && kafka.broker().committed(group, topic, 1) == 3);
    first.close();
    second.close();
    a.get(30, TimeUnit.SECONDS);
    b.get(30, TimeUnit.SECONDS);
    assertThat(calls).hasSize(6);
    assertThat(calls.values())
        .as("the call finished in the revocation was committed, not repeated by the new owner")
        .allMatch(n -> n.get() == 1);
  }

  /** A rebalance callback of this JVM is waiting for a handler call in flight to finish. */
  private static boolean aRevocationWaitsForACall() {
    return Thread.getAllStackTraces().values().stream()
        .anyMatch(
            stack -> Arrays.stream(stack).anyMatch(f -> f.getMethodName().equals("finishRevoked")));
  }

  private static Map<String, Object> settings(String topic, String group) {
    Map<String, Object> settings =
        LadderTestSettings.of(
            LadderTestSettings.prefixed(kafka.clientSettings("", "")), topic, group);
    // One commit attempt gives up after 2 s, so a frozen broker fails it quickly.
    settings.put("kafka.default.api.timeout.ms", 2000);
    settings.put("kafka.request.timeout.ms", 1000);
    return settings;
  }

  private RetryingConsumer<String, String> consumer(
      Map<String, Object> settings, SimpleMeterRegistry meters, Work work) {
    return RetryingConsumer.builder(settings, new StringDeserializer(), new StringDeserializer())
        .handler(
            record -> {
              String op = CourierHeaders.text(record.headers(), CourierHeaders.ID).orElseThrow();
              calls.computeIfAbsent(op, k -> new AtomicInteger()).incrementAndGet();
              work.on(op);
            })
        .meterRegistry(meters)
        .build();
  }

  private static void send(String topic, int partition, String op) throws Exception {
    Map<String, Object> config = new HashMap<>(kafka.clientSettings("", ""));
    try (KafkaProducer<byte[], byte[]> producer =
        new KafkaProducer<>(config, new ByteArraySerializer(), new ByteArraySerializer())) {
      byte[] bytes = op.getBytes(StandardCharsets.UTF_8);
      ProducerRecord<byte[], byte[]> r = new ProducerRecord<>(topic, partition, bytes, bytes);
      r.headers().add(CourierHeaders.ID, bytes);
      producer.send(r).get(30, TimeUnit.SECONDS);
    }
  }
}
