package dev.courier.outbox;

import dev.courier.core.internal.Traces;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Metrics;
import io.opentelemetry.api.OpenTelemetry;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Objects;

/**
 * Writes outbox events inside the caller's JDBC transaction: the business change and its events
 * commit together or not at all. Never commits or rolls back the connection.
 */
public interface OutboxWriter {

  void write(Connection connection, OutboxEvent event) throws SQLException;

  /** Writes several events in one batch, in order. */
  void writeAll(Connection connection, List<OutboxEvent> events) throws SQLException;

  /**
   * The default writer: insert, then delete in the same transaction ({@code remove-after-insert},
   * as Debezium's Quarkus extension does), so the table stays empty while CDC still sees the
   * insert; one outbox table, meters in Micrometer's global registry.
   */
  static OutboxWriter create() {
    return builder().build();
  }

  static Builder builder() {
    return new Builder();
  }

  /** Shards, whether rows stay, and where the writer's meters go. */
  final class Builder {
    private OutboxShards shards = OutboxShards.SINGLE;
    private boolean removeAfterInsert = true;
    private MeterRegistry meterRegistry = Metrics.globalRegistry;
    private OpenTelemetry openTelemetry;
    private boolean checkCapture = true;
    private OutboxCapture capture;

    private Builder() {}

    /**
     * Whether a write is refused ({@link OutboxNotCapturedException}) while no replication slot and
     * publication capture the outbox table (default true; checked at the first write, then every 30
     * s): such an event would commit and never be published. Turn it off only where the table is
     * captured by other means the check cannot see.
     */
    public Builder checkCapture(boolean checkCapture) {
      this.checkCapture = checkCapture;
      return this;
    }

    /**
     * The slot and publication the relays read through: the check then asks for exactly those (a
     * shard's with its suffix). Without it, any publication holding the table and any {@code
     * pgoutput} slot of the database pass, which misses a dropped slot where others remain.
     */
    public Builder capture(OutboxCapture capture) {
      this.capture = Objects.requireNonNull(capture, "capture");
      return this;
    }

    /**
     * A sharded outbox: each event goes to its aggregate id's shard, whose relay publishes it (the
     * relays run with the same {@code outbox.shard.count}).
     */
    public Builder shards(OutboxShards shards) {
      this.shards = Objects.requireNonNull(shards, "shards");
      return this;
    }

    /**
     * Whether to delete each row in the transaction that wrote it (default true); false keeps rows,
     * e.g. for audit, and leaves their purge to you.
     */
    public Builder removeAfterInsert(boolean removeAfterInsert) {
      this.removeAfterInsert = removeAfterInsert;
      return this;
    }

    /** Where {@code courier_outbox_events_written_total{table}} is registered. */
    public Builder meterRegistry(MeterRegistry registry) {
      this.meterRegistry = Objects.requireNonNull(registry, "registry");
      return this;
    }

    /**
     * Captures the caller's current trace context into each row's {@code tracingspancontext} column
     * (Debezium's name and format), which the relay continues; needs the outbox schema's V4
     * migration. Without it no context is captured and the insert leaves the column out.
     */
    public Builder openTelemetry(OpenTelemetry openTelemetry) {
      this.openTelemetry = Objects.requireNonNull(openTelemetry, "openTelemetry");
      return this;
    }

    public OutboxWriter build() {
      return new PostgresOutboxWriter(
          removeAfterInsert,
          shards,
          meterRegistry,
          Traces.of(openTelemetry),
          checkCapture,
          capture);
    }
  }
}
