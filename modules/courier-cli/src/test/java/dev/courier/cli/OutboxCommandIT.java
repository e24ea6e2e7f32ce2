package dev.courier.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.courier.outbox.OutboxRelayConfig;
import dev.courier.outbox.OutboxSkips;
import dev.courier.testkit.CourierInfraTest;
import dev.courier.testkit.TestDatabase;
import dev.courier.testkit.UniqueNames;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * {@code courier outbox skip} and {@code skips} in this JVM against a real PostgreSQL, with the
 * relay's settings: a dry run records nothing, {@code --execute} needs a reason and records who and
 * why. What the relay then does with the skip is {@code RelayRefusalsIT}'s.
 */
@CourierInfraTest
class OutboxCommandIT {

  @Test
  void skipIsADryRunUntilExecutedAndRecordsWhoAndWhy(TestDatabase db) {
    Map<String, String> relay =
        OutboxRelayConfig.settings(
            "localhost:9092",
            db.jdbcUrl(),
            db.username(),
            db.password(),
            UniqueNames.topic("skip").replace('-', '_'));
    UUID event = UUID.randomUUID();

    CourierCommandTest.Run dry = run(relay, "outbox", "skip", event.toString());
    assertThat(dry.status()).isZero();
    assertThat(dry.out()).contains("Would skip event " + event).contains("Nothing recorded");
    assertThat(OutboxSkips.list(relay)).noneMatch(s -> s.eventId().equals(event));

    CourierCommandTest.Run noReason = run(relay, "outbox", "skip", event.toString(), "--execute");
    assertThat(noReason.status()).isEqualTo(1);
    assertThat(noReason.err()).contains("--reason");

    CourierCommandTest.Run done =
        run(
            relay,
            "outbox",
            "skip",
            event.toString(),
            "--execute",
            "--actor",
            "ops",
            "--reason",
            "over every limit, ticket 42");
    assertThat(done.status()).isZero();
    assertThat(done.out()).contains("Skipped event " + event).contains("skipped by ops at ");
    assertThat(OutboxSkips.list(relay))
        .filteredOn(s -> s.eventId().equals(event))
        .singleElement()
        .satisfies(
            s -> {
              assertThat(s.actor()).isEqualTo("ops");
              assertThat(s.reason()).isEqualTo("over every limit, ticket 42");
            });

    CourierCommandTest.Run listed = run(relay, "outbox", "skips");
    assertThat(listed.status()).isZero();
    assertThat(listed.out()).contains(event + "  skipped by ops at ");
  }

  private static CourierCommandTest.Run run(Map<String, String> settings, String... command) {
    List<String> args = new ArrayList<>(List.of(command));
    settings.forEach((k, v) -> args.addAll(List.of("--set", k + "=" + v)));
    return CourierCommandTest.run(args.toArray(String[]::new));
  }
}
