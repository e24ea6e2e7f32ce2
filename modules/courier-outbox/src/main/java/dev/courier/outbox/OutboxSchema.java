package dev.courier.outbox;

import dev.courier.core.CourierTracing;
import dev.courier.core.internal.SqlMigrations;
import dev.courier.outbox.internal.Capture;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import javax.sql.DataSource;

/** The outbox tables, shipped as versioned SQL in {@code db/courier-outbox/}. */
public final class OutboxSchema {

  private OutboxSchema() {}

  public static void migrate(DataSource dataSource) {
    SqlMigrations.apply(
        dataSource,
        "courier-outbox",
        List.of(
            "V1__outbox_table.sql",
            "V2__relay_terms.sql",
            "V3__outbox_skips.sql",
            "V4__outbox_trace_context.sql"));
  }

  /**
   * Makes each shard's replication slot and publication ({@link OutboxCapture}) unless they exist,
   * so that an event committed from now on is published whenever its relay starts: one committed
   * before they exist never is. Needs a role that may create publications and replication slots
   * (the relay's); the relay does it at every start.
   *
   * @throws IllegalStateException naming what could not be made, and why
   */
  public static void prepareCapture(
      DataSource dataSource, OutboxShards shards, OutboxCapture capture) {
    for (int shard = 0; shard < shards.count(); shard++) {
      OutboxCapture own = capture.shard(shard, shards.count());
      try (Connection c = dataSource.getConnection()) {
        Capture.ensure(c, shards.table(shard), own.slot(), own.publication(), own.failover());
      } catch (SQLException e) {
        throw new IllegalStateException(
            "cannot make slot "
                + own.slot()
                + " and publication "
                + own.publication()
                + " for "
                + shards.table(shard)
                + ": "
                + e.getMessage()
                + " (the relay makes them at its start)",
            e);
      }
    }
  }

  /**
   * Why an event written now would not be published ({@link OutboxCapture}: no publication holds a
   * shard's table, or no logical replication slot exists in the database), or empty when every
   * shard's table is captured. What an application holding the outbox tells its readiness by.
   *
   * @throws IllegalStateException PostgreSQL could not be asked
   */
  public static java.util.Optional<String> uncaptured(DataSource dataSource, OutboxShards shards) {
    return uncaptured(dataSource, shards, null);
  }

  /**
   * As {@link #uncaptured(DataSource, OutboxShards)}, asking for exactly these names (each shard's
   * with its suffix); {@code capture} null: any publication holding a table and any pgoutput slot.
   */
  public static java.util.Optional<String> uncaptured(
      DataSource dataSource, OutboxShards shards, OutboxCapture capture) {
    try (Connection c = dataSource.getConnection()) {
      for (int shard = 0; shard < shards.count(); shard++) {
        OutboxCapture own = capture == null ? null : capture.shard(shard, shards.count());
        String missing =
            own == null
                ? Capture.missing(c, shards.table(shard))
                : Capture.missing(c, shards.table(shard), own.slot(), own.publication());
        if (missing != null) {
          return java.util.Optional.of(missing);
        }
      }
      return java.util.Optional.empty();
    } catch (SQLException e) {
      throw new IllegalStateException("cannot ask PostgreSQL whether the outbox is captured", e);
    }
  }

  /** The tables and, for every shard after the first, a table like {@code courier_outbox}. */
  public static void migrate(DataSource dataSource, OutboxShards shards) {
    migrate(dataSource);
    if (shards.count() == 1) {
      return;
    }
    try (Connection c = dataSource.getConnection();
        Statement s = c.createStatement()) {
      for (int shard = 1; shard < shards.count(); shard++) {
        s.execute(
            "CREATE TABLE IF NOT EXISTS "
                + shards.table(shard)
                + " (LIKE "
                + shards.table(0)
                + " INCLUDING ALL)");
        // A shard made before the trace column existed does not get it from LIKE.
        s.execute(
            "ALTER TABLE "
                + shards.table(shard)
                + " ADD COLUMN IF NOT EXISTS "
                + CourierTracing.OUTBOX_COLUMN
                + " varchar(512)");
      }
    } catch (SQLException e) {
      throw new IllegalStateException("cannot create the outbox's shard tables: " + e, e);
    }
  }
}
