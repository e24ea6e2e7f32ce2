package dev.courier.cli;

import dev.courier.retry.DltFilter;
import dev.courier.retry.DltRecord;
import dev.courier.retry.DltReplayer;
import dev.courier.retry.DltReplayerConfig;
import dev.courier.retry.ReplayTarget;
import io.micrometer.core.instrument.Metrics;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import org.apache.kafka.common.header.Header;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(
    name = "dlt",
    mixinStandardHelpOptions = true,
    description =
        "Dead letters: list and show them with their reasons, park the ones never to replay, and"
            + " replay the rest (dry run unless --execute; audited; rate-limited by"
            + " retry.replay.rate.per.second). Replayed records re-enter through the consumer's"
            + " idempotency check.",
    subcommands = {
      DltCommand.ListCommand.class,
      DltCommand.Show.class,
      DltCommand.Replay.class,
      DltCommand.Park.class
    })
final class DltCommand {

  /** Which dead letters: all unless narrowed. */
  static final class Filters {
    @Option(
        names = "--failure-reason",
        description = "permanent, attempts-exhausted, expired, deadline, ...")
    String reason;

    @Option(names = "--exception", description = "Text in the exception class or message.")
    String exception;

    @Option(
        names = "--operation-key",
        description = "The operation key (courier.operation.key; operation-key= in the output).")
    String operationKey;

    @Option(
        names = "--record-key",
        description = "The Kafka record's key, as text (record-key= in the output).")
    String recordKey;

    @Option(
        names = "--key",
        hidden = true,
        description = "Deprecated: either key; use --operation-key or --record-key.")
    String key;

    @Option(names = "--since", paramLabel = "ISO-8601", description = "Failed at or after.")
    Instant since;

    @Option(names = "--until", paramLabel = "ISO-8601", description = "Failed before.")
    Instant until;

    DltFilter filter() {
      DltFilter f = DltFilter.all();
      if (reason != null) {
        f = f.reason(reason);
      }
      if (exception != null) {
        f = f.exception(exception);
      }
      if (key != null) {
        System.err.println(
            "--key is deprecated (it matches either key): use --operation-key or --record-key");
        f = f.key(key);
      }
      if (operationKey != null) {
        f = f.operationKey(operationKey);
      }
      if (recordKey != null) {
        f = f.recordKey(recordKey);
      }
      if (since != null || until != null) {
        f = f.between(since == null ? Instant.EPOCH : since, until == null ? Instant.MAX : until);
      }
      return f;
    }
  }

  /** Where one dead letter sits. */
  static final class Coordinates {
    @Parameters(index = "0", paramLabel = "DLT_TOPIC")
    String dlt;

    @Parameters(index = "1", paramLabel = "PARTITION")
    int partition;

    @Parameters(index = "2", paramLabel = "OFFSET")
    long offset;

    /** The dead letter there, or empty after saying so on stderr. */
    Optional<DltRecord> find(DltReplayer replayer) {
      Optional<DltRecord> found = replayer.inspect(dlt, partition, offset);
      if (found.isEmpty()) {
        System.err.println("no dead letter at " + dlt + "-" + partition + "@" + offset);
      }
      return found;
    }
  }

  /**
   * The replayer; with the audit database when {@code changes} (required, exit 2 naming {@value
   * OperatorSettings#AUDIT_JDBC_URL} without it) or when it is set, read only otherwise.
   */
  static DltReplayer replayer(OperatorSettings settings, boolean changes) {
    Map<String, Object> replayer = settings.clients().asSettings();
    replayer.put(DltReplayerConfig.REPLAY_RATE_PER_SECOND, settings.replayRate());
    return DltReplayer.create(
        replayer,
        changes ? settings.auditDatabase() : settings.auditDatabaseIfSet().orElse(null),
        Metrics.globalRegistry,
        Clock.systemUTC(),
        ServiceTracing.global().orElse(null));
  }

  @Command(name = "list", mixinStandardHelpOptions = true, description = "One line a dead letter.")
  static final class ListCommand implements Callable<Integer> {
    @Mixin SettingsOptions options;
    @Mixin Filters filters;

    @Parameters(paramLabel = "DLT_TOPIC")
    String dlt;

    @Override
    public Integer call() {
      try (DltReplayer replayer = replayer(OperatorSettings.resolve(options), false)) {
        List<DltRecord> records = replayer.list(dlt, filters.filter());
        records.forEach(r -> System.out.println(r.render()));
        System.out.println(records.size() + " dead letter(s)");
      }
      return 0;
    }
  }

  @Command(
      name = "show",
      mixinStandardHelpOptions = true,
      description = "One dead letter with every header, its key and value.")
  static final class Show implements Callable<Integer> {
    @Mixin SettingsOptions options;

    @Mixin Coordinates at;

    @Override
    public Integer call() {
      try (DltReplayer replayer = replayer(OperatorSettings.resolve(options), false)) {
        Optional<DltRecord> found = at.find(replayer);
        if (found.isEmpty()) {
          return 1;
        }
        DltRecord r = found.get();
        System.out.println(r.render());
        System.out.println("record key:    " + r.recordKeyText());
        System.out.println(
            "operation key: " + r.operationKey().map(DltRecord::printable).orElse("-"));
        System.out.println("value:         " + DltRecord.text(r.value()));
        for (Header h : r.headers()) {
          System.out.println(
              "header " + DltRecord.printable(h.key()) + ": " + DltRecord.text(h.value()));
        }
        return 0;
      }
    }
  }

  @Command(
      name = "replay",
      mixinStandardHelpOptions = true,
      description =
          "Sends dead letters back to the group that dead-lettered each, through the first tier"
              + " of its own ladder (or to their original topics with --to-original-topics, which"
              + " every group reading them receives, or to --to), with their key, value and headers"
              + " plus courier.replay.of; parked ones are left out.")
  static final class Replay implements Callable<Integer> {
    @Mixin SettingsOptions options;
    @Mixin Filters filters;
    @Mixin ChangeOptions change;

    @Parameters(paramLabel = "DLT_TOPIC")
    String dlt;

    @ArgGroup(exclusive = true, multiplicity = "0..1")
    Target target;

    /** Where to, when not to the group that dead-lettered each record. */
    static final class Target {
      @Option(names = "--to", paramLabel = "TOPIC", description = "Send here instead.")
      String to;

      @Option(
          names = "--to-original-topics",
          description =
              "Send to the original topics and partitions: every group reading them receives the"
                  + " records again.")
      boolean toOriginal;

      ReplayTarget resolve() {
        return to != null ? ReplayTarget.topic(to) : ReplayTarget.originalTopics();
      }
    }

    @Option(names = "--execute", description = "Send (otherwise a dry run).")
    boolean execute;

    @Override
    public Integer call() {
      OperatorSettings settings = OperatorSettings.resolve(options);
      try (DltReplayer replayer = replayer(settings, execute)) {
        DltReplayer.ReplayPlan plan =
            replayer.plan(
                dlt,
                filters.filter(),
                target == null ? ReplayTarget.failingGroup() : target.resolve());
        System.out.println(
            execute
                ? "REPLAYING (audited, at most " + settings.replayRate() + " record(s)/s):"
                : "DRY RUN: nothing is sent.");
        System.out.print(plan.render());
        if (!execute) {
          if (!replayer.auditable()) {
            System.out.println(
                "Parked records not checked: "
                    + OperatorSettings.AUDIT_JDBC_URL
                    + " is not set (an --execute needs it).");
          }
          System.out.println("Nothing sent: add --execute --reason WHY to replay.");
          return 0;
        }
        DltReplayer.ReplayResult result = replayer.replay(plan, change.actor, change.reason);
        System.out.println(
            "Replayed " + result.sent() + " record(s); audit entry " + result.auditId());
        return 0;
      }
    }
  }

  @Command(
      name = "park",
      mixinStandardHelpOptions = true,
      description = "Marks a dead letter as never to be replayed (audited).")
  static final class Park implements Callable<Integer> {
    @Mixin SettingsOptions options;
    @Mixin ChangeOptions change;

    @Mixin Coordinates at;

    @Override
    public Integer call() {
      try (DltReplayer replayer = replayer(OperatorSettings.resolve(options), true)) {
        Optional<DltRecord> found = at.find(replayer);
        if (found.isEmpty()) {
          return 1;
        }
        replayer.park(found.get(), change.actor, change.reason);
        System.out.println("Parked " + found.get().coordinates());
        return 0;
      }
    }
  }
}
