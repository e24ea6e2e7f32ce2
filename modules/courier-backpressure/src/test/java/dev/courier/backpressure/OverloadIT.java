package dev.courier.backpressure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;
import static org.awaitility.Awaitility.await;

import dev.courier.testkit.CourierInfraTest;
import dev.courier.testkit.KafkaBroker;
import dev.courier.testkit.PacedConsumer;
import dev.courier.testkit.UniqueNames;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Work arrives at 120/s and completes at 100/s: the backlog grows about 20/s, the oldest record
 * ages, the group turns WARN and the admission controller refuses once the age limit is crossed;
 * when the load stops the consumer drains, the status returns to OK and work is admitted again.
 */
@CourierInfraTest
class OverloadIT {

  private static final Logger LOG = LoggerFactory.getLogger(OverloadIT.class);

  @Test
  void backlogGrowsUnderOverloadAndAdmissionShedsIt(KafkaBroker kafka) throws Exception {
    String topic = UniqueNames.topic("overload");
    String group = UniqueNames.group("overload");
    kafka.createTopic(topic, 1);
    AtomicBoolean producing = new AtomicBoolean(true);
    AtomicBoolean consuming = new AtomicBoolean(true);
    AtomicLong produced = new AtomicLong();
    ScheduledExecutorService load = Executors.newScheduledThreadPool(2);
    try (KafkaProducer<String, String> producer =
            new KafkaProducer<>(
                kafka.producerConfig(), new StringSerializer(), new StringSerializer());
        LagMonitor monitor =
            LagMonitorIT.monitor(
                kafka,
                List.of(group),
                Map.of(MonitorConfig.TICK_INTERVAL_MS, "1000", MonitorConfig.WINDOW_MS, "8000"))) {
      // 3 records every 25 ms: 120/s.
      load.scheduleAtFixedRate(
          () -> {
            if (producing.get()) {
              for (int i = 0; i < 3; i++) {
                producer.send(new ProducerRecord<>(topic, "k", "v" + produced.incrementAndGet()));
              }
            }
          },
          0,
          25,
          TimeUnit.MILLISECONDS);
      load.submit(() -> PacedConsumer.run(kafka.consumerConfig(group), topic, 100, consuming::get));
      AdmissionController admission =
          AdmissionController.builder()
              .watch(monitor, group)
              .maxOldestAge(Duration.ofSeconds(3))
              .build();
      monitor.start();

      Instant start = Instant.now();
      await().atMost(Duration.ofSeconds(60)).until(() -> monitor.group(group).isPresent());
      assertThat(admission.tryAdmit(Work.ofBytes(100)).admitted()).isTrue();

      GroupLag warned =
          await()
              .atMost(Duration.ofSeconds(90))
              .pollInterval(Duration.ofMillis(250))
              .until(
                  () -> monitor.group(group).orElseThrow(),
                  g ->
                      g.verdict().status() == Status.WARN
                          && g.maxOldestAge().compareTo(Duration.ofSeconds(3)) > 0
                          && Duration.between(start, Instant.now()).toSeconds() >= 15);
      PartitionLag p = warned.partitions().get(0);
      LOG.info(
          "overload after {}: lag {}, age {}, produce {}/s, commit {}/s, growth {}/s, {}",
          Duration.between(start, Instant.now()),
          p.lag(),
          p.oldestAge(),
          p.rates().produceRate(),
          p.rates().commitRate(),
          p.rates().lagGrowthRate(),
          warned.verdict().reason());
      assertThat(p.rates().produceRate()).isCloseTo(120, within(15.0));
      assertThat(p.rates().commitRate()).isCloseTo(100, within(15.0));
      assertThat(p.rates().lagGrowthRate()).isCloseTo(20, within(12.0));
      assertThat(warned.timeToDrain()).isEmpty();
      Admission refused = admission.tryAdmit(Work.ofBytes(100));
      assertThat(refused.reason()).contains(RejectReason.OLDEST_AGE);
      assertThat(refused.httpStatus()).isEqualTo(429);

      producing.set(false);
      GroupLag recovered =
          await()
              .atMost(Duration.ofSeconds(90))
              .pollInterval(Duration.ofMillis(250))
              .until(
                  () -> monitor.group(group).orElseThrow(),
                  g -> g.verdict().status() == Status.OK && g.sumLag() == 0);
      assertThat(recovered.maxOldestAge()).isZero();
      assertThat(admission.tryAdmit(Work.ofBytes(100)).admitted()).isTrue();
    } finally {
      producing.set(false);
      consuming.set(false);
      load.shutdown();
      assertThat(load.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
    }
  }
}
