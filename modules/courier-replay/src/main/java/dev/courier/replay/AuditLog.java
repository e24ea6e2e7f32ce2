package dev.courier.replay;

import java.util.List;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * Where offset operations are recorded. PostgreSQL by default: an append-only table is durable,
 * queryable by group, actor or time with plain SQL, and keeps every entry, where a compacted topic
 * would keep only the newest entry per key and needs a consumer to search it.
 */
public interface AuditLog {

  /** Records an operation about to be applied; returns its id (outcome {@code pending}). */
  long begin(AuditEntry entry);

  /** Sets the outcome ({@code applied} or {@code failed: <why>}). */
  void finish(long id, String outcome);

  Optional<AuditEntry> find(long id);

  /** Entries of a group, newest first. */
  List<AuditEntry> forGroup(String group);

  /** A log in PostgreSQL; creates its table on first use. */
  static AuditLog postgres(DataSource dataSource) {
    return new PostgresAuditLog(dataSource);
  }
}
