package dev.courier.outbox;

import dev.courier.core.CourierTracing;
import dev.courier.core.internal.SqlMigrations;
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
