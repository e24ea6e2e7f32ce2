package dev.courier.outbox;

import dev.courier.core.SqlMigrations;
import java.util.List;
import javax.sql.DataSource;

/** The outbox tables, shipped as versioned SQL in {@code db/courier-outbox/}. */
public final class OutboxSchema {

  private OutboxSchema() {}

  public static void migrate(DataSource dataSource) {
    SqlMigrations.apply(
        dataSource, "courier-outbox", List.of("V1__outbox_table.sql", "V2__relay_terms.sql"));
  }
}
