package dev.courier.replay;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Metrics;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Objects;
import org.apache.kafka.clients.admin.Admin;

/**
 * Moves a consumer group's committed offsets the way {@code kafka-consumer-groups --reset-offsets}
 * does, made safe for operators: {@link #plan} is a dry run that changes nothing; {@link #execute}
 * refuses while the group has members, exports the current offsets (the undo file), writes an audit
 * entry with a required reason, then applies; {@link #undo} restores what an entry replaced.
 */
public interface OffsetResetter {

  /** The group as {@code kafka-consumer-groups --describe --group} reports it. */
  GroupView describe(String group);

  /** The dry run: targets resolved and clamped into the retained log, nothing changed. */
  ResetPlan plan(String group, ResetScope scope, ResetTarget target);

  /**
   * Applies a plan.
   *
   * @throws GroupActiveException while the group has live members
   * @throws IllegalStateException if the group's offsets moved since the plan was made
   */
  AuditEntry execute(ResetPlan plan, String actor, String reason);

  /** Restores the offsets an executed entry replaced (itself audited, as an {@code undo}). */
  AuditEntry undo(long auditId, String actor, String reason);

  static Builder builder() {
    return new Builder();
  }

  /** Admin client, audit log, where undo files go, and the clock. */
  final class Builder {
    Admin admin;
    AuditLog auditLog;
    Path undoDirectory = Path.of("courier-undo");
    Clock clock = Clock.systemUTC();
    MeterRegistry meterRegistry = Metrics.globalRegistry;

    private Builder() {}

    /** The caller's Admin client; the resetter does not close it. */
    public Builder admin(Admin admin) {
      this.admin = Objects.requireNonNull(admin, "admin");
      return this;
    }

    public Builder auditLog(AuditLog auditLog) {
      this.auditLog = Objects.requireNonNull(auditLog, "auditLog");
      return this;
    }

    public Builder undoDirectory(Path directory) {
      this.undoDirectory = Objects.requireNonNull(directory, "directory");
      return this;
    }

    public Builder clock(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /** Where {@code courier_replay_offset_changes_total{group,action}} is registered. */
    public Builder meterRegistry(MeterRegistry registry) {
      this.meterRegistry = Objects.requireNonNull(registry, "registry");
      return this;
    }

    public OffsetResetter build() {
      Objects.requireNonNull(admin, "admin is required");
      Objects.requireNonNull(auditLog, "auditLog is required");
      return new DefaultOffsetResetter(this);
    }
  }
}
