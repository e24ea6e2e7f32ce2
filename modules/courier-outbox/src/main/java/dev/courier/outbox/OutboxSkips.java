package dev.courier.outbox;

import dev.courier.outbox.internal.Outage;
import dev.courier.outbox.internal.PostgresAccess;
import dev.courier.outbox.internal.SkippedEvents;
import java.time.Instant;
import java.util.Collection;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;

/**
 * The operator's way past an outbox row Kafka refuses for good under {@code
 * outbox.invalid.row.policy=fail}: the relay stops at such a row and publishes nothing after it,
 * and deleting the row does not help, since the slot decodes its INSERT from the WAL again. A skip
 * names the event, who skipped it and why ({@code courier_outbox_skips}); the relay's next start
 * sends the row to {@code <prefix>.outbox.dlt} as a dead-letter envelope whose reason quotes the
 * skip, and goes on in order. {@code courier outbox skip} calls this.
 */
public final class OutboxSkips {

  /** One skip: the event, and the audit of it. */
  public record Skip(UUID eventId, String actor, String reason, Instant at) {
    public Skip {
      Objects.requireNonNull(eventId, "eventId");
      requireText(actor, "actor");
      requireText(reason, "reason");
      Objects.requireNonNull(at, "at");
    }

    /** The dead letter's reason. */
    public String describe() {
      return "skipped by " + actor + " at " + at + ": " + reason;
    }
  }

  private OutboxSkips() {}

  /**
   * Records the skip of {@code eventId} in the relay's database (the relay's settings: {@code
   * database.*}), creating the table if the outbox schema predates it. A second skip of one event
   * keeps the first.
   *
   * @throws IllegalStateException when PostgreSQL cannot be reached
   */
  public static Skip skip(Map<String, ?> relaySettings, UUID eventId, String actor, String reason) {
    requireText(actor, "actor");
    requireText(reason, "reason");
    PostgresAccess postgres = new PostgresAccess(new OutboxRelayConfig(relaySettings));
    OutboxSchema.migrate(postgres.dataSource());
    try {
      return SkippedEvents.add(postgres, Objects.requireNonNull(eventId, "eventId"), actor, reason);
    } catch (Outage e) {
      throw new IllegalStateException(e.getMessage(), e);
    }
  }

  /** Every skip recorded, for the operator's view. */
  public static Collection<Skip> list(Map<String, ?> relaySettings) {
    PostgresAccess postgres = new PostgresAccess(new OutboxRelayConfig(relaySettings));
    try {
      return SkippedEvents.load(postgres).values();
    } catch (Outage e) {
      throw new IllegalStateException(e.getMessage(), e);
    }
  }

  private static void requireText(String value, String name) {
    if (value == null || value.isBlank()) {
      throw new IllegalArgumentException(name + " is required");
    }
  }
}
