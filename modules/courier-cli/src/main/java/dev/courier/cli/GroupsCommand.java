package dev.courier.cli;

import dev.courier.replay.AuditEntry;
import dev.courier.replay.AuditLog;
import dev.courier.replay.OffsetCsv;
import dev.courier.replay.OffsetResetter;
import dev.courier.replay.ResetPlan;
import dev.courier.replay.ResetScope;
import dev.courier.replay.ResetTarget;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.concurrent.Callable;
import org.apache.kafka.clients.admin.Admin;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(
    name = "groups",
    mixinStandardHelpOptions = true,
    description =
        "Consumer groups as kafka-consumer-groups shows them, and audited offset resets:"
            + " a reset is a dry run unless --execute; an executed one writes an undo file and an"
            + " audit entry (audit.jdbc.url).",
    subcommands = {
      GroupsCommand.Describe.class,
      GroupsCommand.Reset.class,
      GroupsCommand.Undo.class
    })
final class GroupsCommand {

  @Command(
      name = "describe",
      mixinStandardHelpOptions = true,
      description = "Members, committed offsets, log-end offsets and lag of a group.")
  static final class Describe implements Callable<Integer> {
    @Mixin SettingsOptions options;

    @Parameters(paramLabel = "GROUP")
    String group;

    @Override
    public Integer call() {
      OperatorSettings settings = OperatorSettings.resolve(options);
      try (Admin admin = settings.admin()) {
        System.out.print(resetter(admin, settings, null).describe(group).render());
      }
      return 0;
    }
  }

  @Command(
      name = "reset",
      mixinStandardHelpOptions = true,
      description = {
        "Plans (default) or executes a reset of a group's committed offsets, with"
            + " kafka-consumer-groups' targets.",
        "Refuses while the group has live members, or if its offsets moved since the plan."
      })
  static final class Reset implements Callable<Integer> {
    @Mixin SettingsOptions options;
    @Mixin ChangeOptions change;

    @Parameters(paramLabel = "GROUP")
    String group;

    @ArgGroup(multiplicity = "1")
    Scope scope;

    @ArgGroup(multiplicity = "1")
    Target target;

    @Option(names = "--execute", description = "Apply the plan (otherwise a dry run).")
    boolean execute;

    static final class Scope {
      @Option(names = "--all-topics", description = "Every topic the group has offsets for.")
      boolean allTopics;

      @Option(
          names = "--topic",
          paramLabel = "TOPIC[:P,P]",
          description = "One topic, optionally some of its partitions.")
      String topic;

      ResetScope resolve() {
        return allTopics ? ResetScope.allTopics() : ResetScope.parse(topic);
      }
    }

    static final class Target {
      @Option(names = "--to-earliest")
      boolean earliest;

      @Option(names = "--to-latest")
      boolean latest;

      @Option(names = "--to-offset", paramLabel = "OFFSET")
      Long offset;

      @Option(names = "--shift-by", paramLabel = "N")
      Long shift;

      @Option(
          names = "--to-datetime",
          paramLabel = "ISO-8601",
          description = "e.g. 2026-11-30T12:00:00Z")
      String datetime;

      @Option(names = "--by-duration", paramLabel = "PnDTnHnMnS", description = "e.g. PT1H")
      Duration duration;

      @Option(
          names = "--from-file",
          paramLabel = "CSV",
          description = "topic,partition,offset lines (kafka-consumer-groups --export format).")
      Path file;

      ResetTarget resolve(String group) throws Exception {
        if (earliest) {
          return ResetTarget.earliest();
        }
        if (latest) {
          return ResetTarget.latest();
        }
        if (offset != null) {
          return ResetTarget.offset(offset);
        }
        if (shift != null) {
          return ResetTarget.shiftBy(shift);
        }
        if (datetime != null) {
          return ResetTarget.datetime(instant(datetime));
        }
        if (duration != null) {
          return ResetTarget.duration(duration);
        }
        return ResetTarget.fromFile(OffsetCsv.read(Files.readString(file), group));
      }

      private static Instant instant(String text) {
        try {
          return Instant.parse(text);
        } catch (java.time.format.DateTimeParseException e) {
          return OffsetDateTime.parse(text).toInstant();
        }
      }
    }

    @Override
    public Integer call() throws Exception {
      OperatorSettings settings = OperatorSettings.resolve(options);
      try (Admin admin = settings.admin()) {
        OffsetResetter resetter =
            resetter(admin, settings, execute ? AuditLog.postgres(settings.auditDatabase()) : null);
        ResetPlan plan = resetter.plan(group, scope.resolve(), target.resolve(group));
        System.out.println(execute ? "RESETTING (audited):" : "DRY RUN: nothing is changed.");
        System.out.print(plan.render());
        if (!execute) {
          System.out.println("Nothing changed: add --execute --reason WHY to apply this plan.");
          return 0;
        }
        AuditEntry entry = resetter.execute(plan, change.actor, change.reason);
        System.out.println(
            "Applied: audit entry "
                + entry.id()
                + ", undo file "
                + entry.undoFile()
                + " (courier groups undo "
                + entry.id()
                + " --reason WHY)");
        return 0;
      }
    }
  }

  @Command(
      name = "undo",
      mixinStandardHelpOptions = true,
      description = "Restores the offsets an executed reset replaced (itself audited).")
  static final class Undo implements Callable<Integer> {
    @Mixin SettingsOptions options;
    @Mixin ChangeOptions change;

    @Parameters(paramLabel = "AUDIT_ID")
    long auditId;

    @Override
    public Integer call() {
      OperatorSettings settings = OperatorSettings.resolve(options);
      try (Admin admin = settings.admin()) {
        AuditEntry entry =
            resetter(admin, settings, AuditLog.postgres(settings.auditDatabase()))
                .undo(auditId, change.actor, change.reason);
        System.out.println(
            "Undone: audit entry "
                + entry.id()
                + " restored "
                + entry.to()
                + " ("
                + entry.outcome()
                + ")");
        return 0;
      }
    }
  }

  /** A resetter; without an audit log (describe, dry runs) nothing can be executed. */
  static OffsetResetter resetter(Admin admin, OperatorSettings settings, AuditLog audit) {
    return OffsetResetter.builder()
        .admin(admin)
        .auditLog(audit != null ? audit : new RefusingAuditLog())
        .undoDirectory(settings.undoDirectory())
        .build();
  }
}
