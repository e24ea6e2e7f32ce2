package dev.courier.idempotency;

import dev.courier.core.internal.SqlMigrations;
import java.util.List;
import javax.sql.DataSource;

/** The store's tables, shipped as versioned SQL in {@code db/courier-idempotency/}. */
public final class IdempotencySchema {

  static final List<String> MIGRATIONS = List.of("V1__keys_rejections_and_ledger.sql");

  private IdempotencySchema() {}

  /** Creates or upgrades the tables; safe to call from every instance at start. */
  public static void migrate(DataSource dataSource) {
    SqlMigrations.apply(dataSource, "courier-idempotency", MIGRATIONS);
  }
}
