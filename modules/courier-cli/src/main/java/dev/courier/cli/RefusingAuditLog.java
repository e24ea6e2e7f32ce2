package dev.courier.cli;

import dev.courier.replay.AuditEntry;
import dev.courier.replay.AuditLog;
import java.util.List;
import java.util.Optional;

/** Stands in where only reading is allowed: describe and dry runs never reach the audit log. */
final class RefusingAuditLog implements AuditLog {

  @Override
  public long begin(AuditEntry entry) {
    throw new IllegalStateException("read-only: no audit log configured");
  }

  @Override
  public void finish(long id, String outcome) {
    throw new IllegalStateException("read-only: no audit log configured");
  }

  @Override
  public Optional<AuditEntry> find(long id) {
    return Optional.empty();
  }

  @Override
  public List<AuditEntry> forGroup(String group) {
    return List.of();
  }
}
