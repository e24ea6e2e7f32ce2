package dev.courier.retry;

import dev.courier.core.Choice;
import dev.courier.core.ClientSettings;
import dev.courier.core.CourierHeaders;
import dev.courier.core.RenamedKey;
import dev.courier.core.internal.RenamedKeys;
import dev.courier.retry.internal.RetryConfigChecks;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Range;
import org.apache.kafka.common.config.ConfigDef.Type;

/** Settings of a {@link RetryingConsumer}, declared once with default, validator and doc. */
public final class RetryConfig extends AbstractConfig {

  public static final String BOOTSTRAP_SERVERS = ClientSettings.BOOTSTRAP_SERVERS;
  public static final String GROUP_ID = "retry.group.id";
  public static final String TOPIC = "retry.topic";
  public static final String MAX_ATTEMPTS = "retry.max.attempts";
  public static final String BACKOFF_TYPE = "retry.backoff.type";
  public static final String BACKOFF_INITIAL_MS = "retry.backoff.initial.ms";
  public static final String BACKOFF_MAX_MS = "retry.backoff.max.ms";
  public static final String MAX_ELAPSED_MS = "retry.max.elapsed.ms";
  public static final String BUDGET_CAPACITY = "retry.budget.capacity";
  public static final String BUDGET_REFILL_PER_SECOND = "retry.budget.refill.per.second";
  public static final String DEADLINE_HEADER = "retry.deadline.header";
  public static final String OPERATION_KEY_HEADER = "retry.operation.key.header";
  public static final String ORDERING_KEY = "retry.ordering.key";
  public static final String ORDERING = "retry.ordering";
  public static final String ORDERING_ON_DEAD_LETTER = "retry.ordering.on.dead.letter";
  public static final String ORDERING_MAX_BLOCKED_KEYS = "retry.ordering.max.blocked.keys";
  public static final String ORDERING_MAX_WAITING_RECORDS = "retry.ordering.max.waiting.records";
  public static final String ORDERING_OVERFLOW = "retry.ordering.overflow";
  public static final String TOPIC_RETENTION_MS = "retry.topic.retention.ms";
  public static final String DLT_RETENTION_MS = "retry.dlt.retention.ms";
  public static final String EXCEPTION_MESSAGE_MAX_CHARS = "retry.exception.message.max.chars";
  public static final String EXCEPTION_STACKTRACE = "retry.exception.stacktrace";
  public static final String CLASSIFICATION_DEFAULT = "retry.classification.default";
  public static final String POLL_TIMEOUT_MS = "retry.poll.timeout.ms";
  public static final String REPLAY_AUTHORITY = "retry.replay.authority";
  public static final String HANDLER_TIMEOUT_MS = "retry.handler.timeout.ms";
  public static final String SHUTDOWN_TIMEOUT_MS = "retry.shutdown.timeout.ms";
  public static final String COMMIT_INTERVAL_MS = "retry.commit.interval.ms";

  private static final ConfigDef CONFIG =
      ClientSettings.define(new ConfigDef())
          .define(
              GROUP_ID,
              Type.STRING,
              ConfigDef.NO_DEFAULT_VALUE,
              new ConfigDef.NonEmptyString(),
              Importance.HIGH,
              "Consumer group of the main topic and its retry tiers; it names the group's own ladder"
                  + " (letters, digits, '.', '_', '-'), the ladder's headers name it"
                  + " (courier.consumer.group) and its meters are tagged with it (group).")
          .define(
              TOPIC,
              Type.STRING,
              ConfigDef.NO_DEFAULT_VALUE,
              new ConfigDef.NonEmptyString(),
              Importance.HIGH,
              "Main topic; the group's tiers are <topic>.<group>.retry.1..N and its dead-letter"
                  + " topic <topic>.<group>.dlt.")
          .define(
              MAX_ATTEMPTS,
              Type.INT,
              4,
              Range.between(1, 20),
              Importance.HIGH,
              "Most calls of the handler per record, the first included (one tier per retry).")
          .define(
              BACKOFF_TYPE,
              Type.STRING,
              BackOffType.EXPONENTIAL.value(),
              Choice.validator(BackOffType.class),
              Importance.MEDIUM,
              "'exponential': full jitter, uniform in [0, min(max, initial * 2^(retry-1))]; 'fixed': always the initial delay.")
          .define(
              BACKOFF_INITIAL_MS,
              Type.LONG,
              1_000L,
              Range.atLeast(1),
              Importance.MEDIUM,
              "Base delay of the first retry.")
          .define(
              BACKOFF_MAX_MS,
              Type.LONG,
              300_000L,
              Range.atLeast(1),
              Importance.MEDIUM,
              "Cap of any delay.")
          .define(
              MAX_ELAPSED_MS,
              Type.LONG,
              3_600_000L,
              Range.atLeast(1),
              Importance.MEDIUM,
              "No retry runs later than this after the record's first failure.")
          .define(
              BUDGET_CAPACITY,
              Type.INT,
              100,
              Range.atLeast(1),
              Importance.MEDIUM,
              "Retry tokens shared by this consumer's workers; each extra attempt takes one.")
          .define(
              BUDGET_REFILL_PER_SECOND,
              Type.DOUBLE,
              10.0,
              Range.atLeast(0.001),
              Importance.MEDIUM,
              "Tokens added per second. When empty, due records wait at their tier.")
          .define(
              DEADLINE_HEADER,
              Type.STRING,
              CourierHeaders.DEADLINE,
              new ConfigDef.NonEmptyString(),
              Importance.MEDIUM,
              "Deprecated: the business deadline is read from courier.deadline, the header the"
                  + " outbox writes (epoch millis or ISO-8601); a header named here is read as well"
                  + " when a record has no courier.deadline.")
          .define(
              OPERATION_KEY_HEADER,
              Type.STRING,
              CourierHeaders.ID,
              new ConfigDef.NonEmptyString(),
              Importance.MEDIUM,
              "Header holding the operation key when the record has no courier.operation.key yet;"
                  + " it is copied into courier.operation.key on the first hop. The same rule as"
                  + " idempotency.operation.key.header.")
          .define(
              ORDERING_KEY,
              Type.STRING,
              "record key",
              Importance.LOW,
              "What orders this topic's records, as the contract prints it (a retry keeps its"
                  + " partition; retry.ordering says whether later records of a key wait).")
          .define(
              ORDERING,
              Type.STRING,
              RetryOrdering.NONE.value(),
              Choice.validator(RetryOrdering.class),
              Importance.HIGH,
              "'none': a retried record waits at its tier while later records of its key are"
                  + " handled. 'key': while a record of a key (the Kafka record key) is anywhere in"
                  + " the ladder, the key's later records from the main topic wait behind it, in"
                  + " order, and other keys flow; records with a null key are never held. Which"
                  + " keys are blocked and what waits is kept in the compacted topic"
                  + " <topic>.<group>.retry.blocked, so a partition's next owner knows it before its"
                  + " first"
                  + " record. Needs a co-partitioning assignor (range, the default).")
          .define(
              ORDERING_ON_DEAD_LETTER,
              Type.STRING,
              WaitingOnDeadLetter.PARK.value(),
              Choice.validator(WaitingOnDeadLetter.class),
              Importance.MEDIUM,
              "With retry.ordering=key, what happens to the records waiting behind a record that"
                  + " goes to the DLT: 'park' sends them after it, in order, each naming it in"
                  + " courier.blocked.by (courier dlt replay replays them in order); 'release'"
                  + " handles them, in order.")
          .define(
              ORDERING_MAX_BLOCKED_KEYS,
              Type.INT,
              10_000,
              Range.atLeast(1),
              Importance.LOW,
              "With retry.ordering=key, most keys of one partition that may be blocked at once; at"
                  + " the bound the partition's main topic is not read until a key drains.")
          .define(
              ORDERING_MAX_WAITING_RECORDS,
              Type.INT,
              10_000,
              Range.atLeast(1),
              Importance.LOW,
              "With retry.ordering=key, most records of one partition that may wait behind blocked"
                  + " keys; what happens at the bound is retry.ordering.overflow. Waiting records"
                  + " are held in memory up to this bound (and read again from the main topic"
                  + " after a restart).")
          .define(
              ORDERING_OVERFLOW,
              Type.STRING,
              OrderingOverflow.PAUSE.value(),
              Choice.validator(OrderingOverflow.class),
              Importance.LOW,
              "With retry.ordering=key, what a partition does at retry.ordering.max.waiting.records:"
                  + " 'pause' stops reading its main topic until records drain (nothing"
                  + " dead-lettered); 'dead-letter' sends a record that would wait beyond the bound"
                  + " to the DLT as ordering-overflow, naming the record it would have waited"
                  + " behind.")
          .define(
              TOPIC_RETENTION_MS,
              Type.LONG,
              7 * 24 * 3_600_000L,
              Range.atLeast(60_000),
              Importance.LOW,
              "retention.ms of the retry tiers (must exceed the longest delay).")
          .define(
              DLT_RETENTION_MS,
              Type.LONG,
              28 * 24 * 3_600_000L,
              Range.atLeast(-1),
              Importance.LOW,
              "retention.ms of the dead-letter topic (-1 keeps records until replayed and deleted by hand).")
          .define(
              EXCEPTION_MESSAGE_MAX_CHARS,
              Type.INT,
              500,
              Range.between(0, 100_000),
              Importance.LOW,
              "Exception messages are cut to this length in the headers.")
          .define(
              EXCEPTION_STACKTRACE,
              Type.BOOLEAN,
              false,
              Importance.LOW,
              "Add the stack trace (cut to 8 KiB) as a header.")
          .define(
              CLASSIFICATION_DEFAULT,
              Type.STRING,
              FailureClass.TRANSIENT.value(),
              Choice.validator(FailureClass.class),
              Importance.MEDIUM,
              "Class of failures no classification rule matches.")
          .define(
              POLL_TIMEOUT_MS, Type.LONG, 200L, Range.atLeast(1), Importance.LOW, "Longest poll.")
          .define(
              REPLAY_AUTHORITY,
              Type.STRING,
              "the owning team's on-call",
              Importance.LOW,
              "Who may replay this consumer's DLT (printed in the contract).")
          .define(
              HANDLER_TIMEOUT_MS,
              Type.LONG,
              30_000L,
              Range.atLeast(1),
              Importance.HIGH,
              "Longest one handler call may take; then it is interrupted, abandoned and counts as"
                  + " a transient failure. The consumer keeps polling (partitions paused) while a"
                  + " call runs, so a slow handler never costs the group membership; a rebalance"
                  + " waits at most this long for the call in flight, so it must stay below"
                  + " kafka.max.poll.interval.ms.")
          .define(
              SHUTDOWN_TIMEOUT_MS,
              Type.LONG,
              10_000L,
              Range.atLeast(0),
              Importance.MEDIUM,
              "On close (SIGTERM): no new records are taken, the call in flight gets this long to"
                  + " finish (then it is abandoned and redone by the next owner), what is done is"
                  + " committed and the consumer leaves its group at once.")
          .define(
              COMMIT_INTERVAL_MS,
              Type.LONG,
              1_000L,
              Range.atLeast(0),
              Importance.LOW,
              "Offsets are committed after every poll batch (asynchronously) and, within a long"
                  + " batch, at least this often (synchronously): a killed worker redoes at most"
                  + " the record in flight, what finished since the last commit and the records of"
                  + " a commit still in flight. 0 commits every record synchronously and hands"
                  + " the handler one call at a time, so a kill repeats at most the record in"
                  + " flight.");

  private final ClientSettings clients;

  private static final List<RenamedKey> RENAMED =
      List.of(
          RenamedKey.renamed("group.id", GROUP_ID),
          RenamedKey.retired(
              DEADLINE_HEADER,
              "the deadline is read from courier.deadline, where the outbox writes it; a header"
                  + " named by it is still read when a record has no courier.deadline"));

  public RetryConfig(Map<String, ?> originals) {
    super(CONFIG, RenamedKeys.apply(originals, RENAMED), false);
    this.clients = ClientSettings.of(this);
    RetryConfigChecks.check(this);
  }

  /** The names of this group's ladder on its topic. */
  public RetryTopics topics() {
    return new RetryTopics(topic(), group(), policy().tiers());
  }

  public RetryOrdering ordering() {
    return Choice.of(RetryOrdering.class, getString(ORDERING));
  }

  public WaitingOnDeadLetter waitingOnDeadLetter() {
    return Choice.of(WaitingOnDeadLetter.class, getString(ORDERING_ON_DEAD_LETTER));
  }

  public OrderingOverflow orderingOverflow() {
    return Choice.of(OrderingOverflow.class, getString(ORDERING_OVERFLOW));
  }

  /** Names this configuration still accepts under their old spelling. */
  public static List<RenamedKey> renamedKeys() {
    return RENAMED;
  }

  public static ConfigDef configDef() {
    return new ConfigDef(CONFIG);
  }

  public String topic() {
    return getString(TOPIC);
  }

  public String group() {
    return getString(GROUP_ID);
  }

  public RetryPolicy policy() {
    Duration initial = Duration.ofMillis(getLong(BACKOFF_INITIAL_MS));
    BackOff backOff =
        backOffType() == BackOffType.FIXED
            ? BackOff.fixed(initial)
            : BackOff.exponentialFullJitter(initial, Duration.ofMillis(getLong(BACKOFF_MAX_MS)));
    return new RetryPolicy(
        getInt(MAX_ATTEMPTS), backOff, Duration.ofMillis(getLong(MAX_ELAPSED_MS)));
  }

  public BackOffType backOffType() {
    return Choice.of(BackOffType.class, getString(BACKOFF_TYPE));
  }

  public FailureClass unknownFailures() {
    return Choice.of(FailureClass.class, getString(CLASSIFICATION_DEFAULT));
  }

  /**
   * The retry budget these settings describe ({@value #BUDGET_CAPACITY}, {@value
   * #BUDGET_REFILL_PER_SECOND}).
   */
  public RetryBudget budget(Clock clock) {
    return RetryBudget.of(getInt(BUDGET_CAPACITY), getDouble(BUDGET_REFILL_PER_SECOND), clock);
  }

  /**
   * Courier's default rules, with unknown failures classed as {@value #CLASSIFICATION_DEFAULT}
   * says.
   */
  public FailureClassifier.Builder classifier() {
    return FailureClassifier.builder().otherwise(unknownFailures());
  }

  /** The Kafka client settings ({@code bootstrap.servers} and {@code kafka.*}), checked. */
  public ClientSettings clients() {
    return clients;
  }

  public Duration handlerTimeout() {
    return Duration.ofMillis(getLong(HANDLER_TIMEOUT_MS));
  }

  public Duration shutdownTimeout() {
    return Duration.ofMillis(getLong(SHUTDOWN_TIMEOUT_MS));
  }

  public Duration commitInterval() {
    return Duration.ofMillis(getLong(COMMIT_INTERVAL_MS));
  }
}
