package dev.courier.lab;

import dev.courier.backpressure.Admission;
import dev.courier.backpressure.AdmissionController;
import dev.courier.backpressure.GroupLag;
import dev.courier.backpressure.LagMonitor;
import dev.courier.backpressure.MonitorConfig;
import dev.courier.backpressure.PartitionLag;
import dev.courier.backpressure.RejectReason;
import dev.courier.backpressure.Status;
import dev.courier.backpressure.Work;
import dev.courier.testkit.PacedConsumer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;

/** Step 5: work arrives at 120/s and completes at 100/s. */
final class OverloadStep implements LabStep {

  private static final String TOPIC = "lab.jobs";
  private static final String GROUP = "lab-jobs";
  private static final Duration AGE_LIMIT = Duration.ofSeconds(3);

  @Override
  public String id() {
    return "overload";
  }

  @Override
  public String title() {
    return "Backpressure: 120/s against 100/s grows lag and age, turns WARN, and admission sheds"
        + " load until the backlog drains";
  }

  @Override
  public String why() {
    return "The consumer can do 100 records a second; 120 arrive. The monitor reads committed and"
        + " log-end offsets every second and the timestamp of the oldest unconsumed record, so it"
        + " sees lag growing by about 20/s and the age climbing. The group turns WARN, and the"
        + " admission controller refuses new work with 429 and Retry-After once the oldest record"
        + " is older than 3 s, instead of letting the backlog grow without bound. When the load"
        + " stops the backlog drains, the status returns to OK and work is admitted again.";
  }

  @Override
  public void run(Lab lab) throws Exception {
    lab.kafka().createTopic(TOPIC, 1);
    Map<String, Object> settings = new HashMap<>();
    settings.put(MonitorConfig.BOOTSTRAP_SERVERS, lab.kafka().bootstrapServers());
    settings.put(MonitorConfig.GROUPS, GROUP);
    settings.put(MonitorConfig.TICK_INTERVAL_MS, "1000");
    settings.put(MonitorConfig.WINDOW_MS, "8000");
    AtomicBoolean producing = new AtomicBoolean(true);
    AtomicBoolean consuming = new AtomicBoolean(true);
    ScheduledExecutorService load = Executors.newScheduledThreadPool(2);
    try (KafkaProducer<String, String> producer =
            new KafkaProducer<>(
                lab.kafka().producerConfig(), new StringSerializer(), new StringSerializer());
        LagMonitor monitor =
            LagMonitor.create(settings, new SimpleMeterRegistry(), Clock.systemUTC())) {
      // 3 records every 25 ms: 120/s.
      load.scheduleAtFixedRate(
          () -> {
            if (producing.get()) {
              for (int i = 0; i < 3; i++) {
                producer.send(new ProducerRecord<>(TOPIC, "job", "work"));
              }
            }
          },
          0,
          25,
          TimeUnit.MILLISECONDS);
      load.submit(
          () -> PacedConsumer.run(lab.kafka().consumerConfig(GROUP), TOPIC, 100, consuming::get));
      AdmissionController admission =
          AdmissionController.builder().watch(monitor, GROUP).maxOldestAge(AGE_LIMIT).build();
      monitor.start();
      Instant start = Instant.now();
      lab.await(
          "the monitor's first view of " + GROUP, () -> monitor.group(GROUP), Optional::isPresent);
      try (Admission first = admission.tryAdmit(Work.ofBytes(100))) {
        lab.expect("admission while the backlog is young", first.admitted(), true);
      }

      GroupLag warned =
          lab.await(
              "lag and age to build up (WARN, oldest record older than 3 s)",
              () -> monitor.group(GROUP).orElseThrow(),
              g ->
                  g.verdict().status() == Status.WARN
                      && g.maxOldestAge().compareTo(AGE_LIMIT) > 0
                      && Duration.between(start, Instant.now()).toSeconds() >= 15);
      PartitionLag p = warned.partitions().get(0);
      lab.say(
          String.format(
              Locale.ROOT,
              "after %d s: lag %d, oldest record %.1f s old, produced %.1f/s, completed %.1f/s,"
                  + " lag growing %.1f/s",
              Duration.between(start, Instant.now()).toSeconds(),
              p.lag(),
              p.oldestAge().toMillis() / 1000.0,
              p.rates().produceRate(),
              p.rates().commitRate(),
              p.rates().lagGrowthRate()));
      lab.expect("group status", warned.verdict().status(), Status.WARN);
      lab.say("reason: " + warned.verdict().reason());
      lab.check(
          "produce rate near 120/s",
          Math.abs(p.rates().produceRate() - 120) < 15,
          rate(p.rates().produceRate()));
      lab.check(
          "completion rate near 100/s",
          Math.abs(p.rates().commitRate() - 100) < 15,
          rate(p.rates().commitRate()));
      lab.check(
          "lag growth near 20/s",
          Math.abs(p.rates().lagGrowthRate() - 20) < 12,
          rate(p.rates().lagGrowthRate()));
      try (Admission refused = admission.tryAdmit(Work.ofBytes(100))) {
        lab.expect(
            "admission refused because of", refused.reason(), Optional.of(RejectReason.OLDEST_AGE));
        lab.expect("HTTP status a service returns", refused.httpStatus(), 429);
        lab.say("Retry-After: " + refused.retryAfterHeader() + " (" + refused.message() + ")");
      }

      producing.set(false);
      lab.say("load stopped; the consumer drains the backlog");
      GroupLag recovered =
          lab.await(
              "the backlog to drain (OK, lag 0)",
              () -> monitor.group(GROUP).orElseThrow(),
              g -> g.verdict().status() == Status.OK && g.sumLag() == 0);
      lab.expect("group status after draining", recovered.verdict().status(), Status.OK);
      lab.expect("oldest unconsumed age after draining", recovered.maxOldestAge(), Duration.ZERO);
      try (Admission again = admission.tryAdmit(Work.ofBytes(100))) {
        lab.expect("admission after draining", again.admitted(), true);
      }
    } finally {
      producing.set(false);
      consuming.set(false);
      load.shutdown();
      load.awaitTermination(30, TimeUnit.SECONDS);
    }
  }

  private static String rate(double perSecond) {
    return String.format(Locale.ROOT, "%.1f/s", perSecond);
  }
}
