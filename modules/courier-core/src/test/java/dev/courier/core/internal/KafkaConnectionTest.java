package dev.courier.core.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.Map;
import org.junit.jupiter.api.Test;

class KafkaConnectionTest {

  private final StepClock clock = new StepClock();
  private final KafkaConnection kafka =
      new KafkaConnection("broker:9092", Duration.ofSeconds(30), clock);

  @Test
  void connectionsDownPastTheGraceAreNamed() {
    kafka.observe(1, 10);
    clock.advance(Duration.ofSeconds(1));
    kafka.observe(0, 11);
    clock.advance(Duration.ofSeconds(2));
    assertThat(kafka.problem()).as("a reconnect's worth of time").isNull();
    clock.advance(Duration.ofSeconds(2));
    assertThat(kafka.problem()).startsWith("no connection to Kafka at broker:9092 for 4 s");
    kafka.observe(1, 12);
    assertThat(kafka.problem()).isNull();
  }

  @Test
  void connectedButUnansweredPastTheRequestTimeoutIsAPartition() {
    kafka.observe(2, 100);
    clock.advance(Duration.ofSeconds(30));
    kafka.observe(2, 100);
    assertThat(kafka.problem()).as("exactly the limit is not past it").isNull();
    clock.advance(Duration.ofSeconds(5));
    kafka.observe(2, 100);
    assertThat(kafka.problem())
        .startsWith("no answer from Kafka at broker:9092 for 35 s though connected");
    clock.advance(Duration.ofSeconds(10));
    assertThat(kafka.problem()).contains("for 45 s");

    kafka.observe(2, 101);
    assertThat(kafka.problem()).as("one answer ends it").isNull();
  }

  @Test
  void aLongGapBetweenPollsIsNotSilenceWhenAnswersCameMeanwhile() {
    // A handler call that holds the loop for a minute: heartbeats were answered all along.
    kafka.observe(1, 100);
    kafka.observe(1, 100);
    clock.advance(Duration.ofMinutes(1));
    assertThat(kafka.problem()).as("not judged until a poll reads the count").isNull();
    kafka.observe(1, 120);
    assertThat(kafka.problem()).isNull();
  }

  @Test
  void theSilenceLimitIsTheConsumersRequestTimeout() {
    assertThat(KafkaConnection.requestTimeout(Map.of())).isEqualTo(Duration.ofSeconds(30));
    assertThat(KafkaConnection.requestTimeout(Map.of("request.timeout.ms", "5000")))
        .isEqualTo(Duration.ofSeconds(5));
    assertThat(KafkaConnection.requestTimeout(Map.of("request.timeout.ms", 7000)))
        .isEqualTo(Duration.ofSeconds(7));
  }

  /** A clock the test moves. */
  private static final class StepClock extends Clock {
    private Instant now = Instant.parse("2026-12-06T10:00:00Z");

    void advance(Duration d) {
      now = now.plus(d);
    }

    @Override
    public Instant instant() {
      return now;
    }

    @Override
    public ZoneId getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
      return this;
    }
  }
}
