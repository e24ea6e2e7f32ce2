package dev.courier.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.courier.core.CourierHeaders;
import dev.courier.retry.RetryTopics;
import dev.courier.testkit.CourierInfraTest;
import dev.courier.testkit.KafkaBroker;
import dev.courier.testkit.UniqueNames;
import java.nio.charset.StandardCharsets;
import java.sql.SQLTransientConnectionException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.kafka.annotation.EnableKafka;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.kafka.annotation.RetryableTopic;

/**
 * A plain {@code @KafkaListener} method on Courier's retry ladder, on a real broker: a transient
 * failure climbs the tiers and succeeds, a permanent one lands in the DLT with its reason and
 * coordinates, what succeeds is called once; a listener that also has {@code @RetryableTopic} is
 * refused at start.
 */
@CourierInfraTest
class SpringRetryLadderIT {

  private static final Duration TIMEOUT = Duration.ofSeconds(90);

  private final KafkaBroker kafka;

  SpringRetryLadderIT(KafkaBroker kafka) {
    this.kafka = kafka;
  }

  private ApplicationContextRunner runner(String topic, String group) {
    return Contexts.kafkaOnly()
        .withPropertyValues(
            "spring.kafka.bootstrap-servers=" + kafka.bootstrapServers(),
            "courier.retry.max.attempts=4",
            "courier.retry.backoff.type=fixed",
            "courier.retry.backoff.initial.ms=200",
            "courier.kafka.auto.offset.reset=earliest",
            "test.topic=" + topic,
            "test.group=" + group);
  }

  @Test
  void aListenerOnTheLadderRetriesTransientFailuresAndParksPermanentOnes() throws Exception {
    String topic = UniqueNames.topic("payments");
    String group = UniqueNames.group("billing");
    kafka.createTopic(topic, 2);
    try (KafkaProducer<String, String> producer =
        new KafkaProducer<>(
            Map.of("bootstrap.servers", kafka.bootstrapServers()),
            new StringSerializer(),
            new StringSerializer())) {
      for (String value : List.of("ok-1", "flaky-1", "bad-1", "ok-2")) {
        producer.send(new ProducerRecord<>(topic, value, value)).get();
      }
    }
    runner(topic, group)
        .withUserConfiguration(Listeners.class)
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              Billing billing = context.getBean(Billing.class);
              await()
                  .atMost(TIMEOUT)
                  .until(
                      () ->
                          billing
                              .succeeded
                              .keySet()
                              .containsAll(List.of("ok-1", "ok-2", "flaky-1")));
              List<ConsumerRecord<String, String>> parked =
                  kafka.readStrings(new RetryTopics(topic, group, 3).deadLetter(), 1, TIMEOUT);
              assertThat(parked).extracting(ConsumerRecord::value).containsExactly("bad-1");
              ConsumerRecord<String, String> dead = parked.get(0);
              assertThat(header(dead, CourierHeaders.CLASSIFICATION))
                  .isEqualTo("PERMANENT (validation)");
              assertThat(header(dead, CourierHeaders.EXCEPTION))
                  .isEqualTo(IllegalArgumentException.class.getName());
              assertThat(header(dead, CourierHeaders.ORIGINAL_TOPIC)).isEqualTo(topic);
              assertThat(header(dead, CourierHeaders.GROUP)).isEqualTo(group);

              assertThat(billing.calls.get("flaky-1").get()).isEqualTo(3);
              assertThat(billing.calls.get("bad-1").get()).isEqualTo(1);
              assertThat(billing.calls.get("ok-1").get()).isEqualTo(1);
              HealthIndicator health =
                  context.getBean("courierRetryHealthIndicator", HealthIndicator.class);
              assertThat(health.health().getStatus()).isEqualTo(Status.UP);
              assertThat(health.health().getDetails().get("listeners").toString())
                  .contains(topic)
                  .contains("deadLettered=1")
                  // The depth says when it was counted: the probe counts every 30 s.
                  .containsPattern(
                      "dltDepth=[0-9-]+, dltDepthCountedAt=(never|\\d{4}-\\d\\d-\\d\\dT)")
                  .contains("dlt=" + new RetryTopics(topic, group, 3).deadLetter());
            });
  }

  @Test
  void aListenerWithRetryableTopicAsWellIsRefusedAtStart() {
    String topic = UniqueNames.topic("payments");
    runner(topic, UniqueNames.group("both"))
        .withUserConfiguration(BothListeners.class)
        .run(
            context ->
                assertThat(context)
                    .getFailure()
                    .rootCause()
                    .hasMessageContaining("@RetryableTopic and Courier's retry ladder"));
  }

  private static String header(ConsumerRecord<?, ?> record, String name) {
    return new String(record.headers().lastHeader(name).value(), StandardCharsets.UTF_8);
  }

  @Configuration(proxyBeanMethods = false)
  @EnableKafka
  static class Listeners {
    @Bean
    Billing billing() {
      return new Billing();
    }
  }

  static class Billing {
    final Map<String, AtomicInteger> calls = new ConcurrentHashMap<>();
    final Map<String, Boolean> succeeded = new ConcurrentHashMap<>();

    @KafkaListener(
        id = "${test.group}",
        topics = "${test.topic}",
        containerFactory = CourierRetryContainerFactory.BEAN_NAME)
    void on(ConsumerRecord<String, String> record) throws Exception {
      int call = calls.computeIfAbsent(record.value(), v -> new AtomicInteger()).incrementAndGet();
      if (record.value().startsWith("flaky") && call <= 2) {
        throw new SQLTransientConnectionException("payment gateway unavailable");
      }
      if (record.value().startsWith("bad")) {
        throw new IllegalArgumentException("no such account");
      }
      succeeded.put(record.value(), true);
    }
  }

  @Configuration(proxyBeanMethods = false)
  @EnableKafka
  static class BothListeners {
    @Bean
    Both both() {
      return new Both();
    }
  }

  static class Both {
    @RetryableTopic
    @KafkaListener(
        id = "${test.group}",
        topics = "${test.topic}",
        containerFactory = CourierRetryContainerFactory.BEAN_NAME)
    void on(ConsumerRecord<String, String> record) {}
  }
}
