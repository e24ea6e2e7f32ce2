package dev.courier.cli;

import dev.courier.retry.DltFilter;
import dev.courier.retry.DltRecord;
import dev.courier.retry.DltReplayer;
import dev.courier.retry.DltReplayerConfig;
import dev.courier.retry.ReplayTarget;
import io.micrometer.core.instrument.Metrics;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.util.Base64;
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

    @Option(names = "--key", description = "The operation key.")
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
        f = f.key(key);
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

  static DltReplayer replayer(OperatorSettings settings) {
    Map<String, Object> replayer = settings.clients().asSettings();
    replayer.put(DltReplayerConfig.REPLAY_RATE_PER_SECOND, settings.replayRate());
    return DltReplayer.create(
        replayer,
        settings.auditDatabase(),
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
      try (DltReplayer replayer = replayer(OperatorSettings.resolve(options))) {
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
      try (DltReplayer replayer = replayer(OperatorSettings.resolve(options))) {
        Optional<DltRecord> found = at.find(replayer);
        if (found.isEmpty()) {
          return 1;
        }
        DltRecord r = found.get();
        System.out.println(r.render());
        System.out.println("key:   " + text(r.key()));
        System.out.println("value: " + text(r.value()));
        for (Header h : r.headers()) {
          System.out.println("header " + h.key() + ": " + text(h.value()));
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
      try (DltReplayer replayer = replayer(OperatorSettings.resolve(options))) {
        DltReplayer.ReplayPlan plan =
            replayer.plan(
                dlt,
                filters.filter(),
                target == null ? ReplayTarget.failingGroup() : target.resolve());
        System.out.print(plan.render());
        if (!execute) {
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
      try (DltReplayer replayer = replayer(OperatorSettings.resolve(options))) {
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

  /** UTF-8 when the bytes are text, base64 otherwise (Avro, compressed payloads). */
  static String text(byte[] bytes) {
    if (bytes == null) {
      return "(null)";
    }
    try {
      return StandardCharsets.UTF_8
          .newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(bytes))
          .toString();
    } catch (CharacterCodingException e) {
      return "base64:" + Base64.getEncoder().encodeToString(bytes);
    }
  }
}
