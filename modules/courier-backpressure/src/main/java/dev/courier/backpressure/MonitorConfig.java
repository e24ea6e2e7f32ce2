package dev.courier.backpressure;

import dev.courier.core.Choice;
import dev.courier.core.ClientSettings;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Range;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigException;

/** Settings of the {@link LagMonitor}, declared once with default, validator and doc. */
public final class MonitorConfig extends AbstractConfig {

  public static final String BOOTSTRAP_SERVERS = ClientSettings.BOOTSTRAP_SERVERS;
  public static final String GROUPS = "monitor.groups";
  public static final String GROUPS_PATTERN = "monitor.groups.pattern";
  public static final String GROUPS_EXCLUDE_PATTERN = "monitor.groups.exclude.pattern";
  public static final String STALE_AFTER_MS = "monitor.stale.after.ms";
  public static final String TICK_INTERVAL_MS = "monitor.tick.interval.ms";
  public static final String WINDOW_MS = "monitor.window.ms";
  public static final String OLDEST_AGE_MODE = "monitor.oldest.age.mode";
  public static final String OLDEST_AGE_READ_TIMEOUT_MS = "monitor.oldest.age.read.timeout.ms";
  public static final String OLDEST_AGE_CACHE_MS = "monitor.oldest.age.cache.ms";
  public static final String UNCOMMITTED_OFFSET_RESET = "monitor.uncommitted.offset.reset";
  public static final String HTTP_PORT = "monitor.http.port";
  public static final String PARTITION_METERS = "monitor.partition.meters";

  private static final ConfigDef CONFIG =
      ClientSettings.define(new ConfigDef())
          .define(
              GROUPS,
              Type.LIST,
              List.of(),
              Importance.HIGH,
              "Consumer groups to watch by name: always reported, a group that does not exist yet"
                  + " as UNKNOWN (not found). With monitor.groups.pattern too, both count.")
          .define(
              GROUPS_PATTERN,
              Type.STRING,
              "",
              MonitorConfig::regex,
              Importance.HIGH,
              "Regular expression of consumer group ids to watch (as kafka-lag-exporter's and"
                  + " Burrow's allow lists), checked against the cluster's groups every tick: new"
                  + " groups appear without a restart and deleted ones go. Empty with"
                  + " monitor.groups empty watches every group.")
          .define(
              GROUPS_EXCLUDE_PATTERN,
              Type.STRING,
              "",
              MonitorConfig::regex,
              Importance.LOW,
              "Regular expression of group ids to leave out of those the cluster lists.")
          .define(
              STALE_AFTER_MS,
              Type.LONG,
              30_000L,
              Range.atLeast(1),
              Importance.MEDIUM,
              "Figures older than this are stale: /v1/groups says so, /health answers 503 with"
                  + " the reason, and admission control treats the groups as unknown. Must span"
                  + " at least two ticks.")
          .define(
              TICK_INTERVAL_MS,
              Type.LONG,
              5_000L,
              Range.atLeast(100),
              Importance.MEDIUM,
              "How often offsets are sampled.")
          .define(
              WINDOW_MS,
              Type.LONG,
              120_000L,
              Range.atLeast(1),
              Importance.MEDIUM,
              "Sliding window for rates and status; a partition with lag whose committed offset"
                  + " has not moved for longer is STOP (no owner) or STALL (owned). Must span at"
                  + " least two ticks.")
          .define(
              OLDEST_AGE_MODE,
              Type.STRING,
              AgeMode.EXACT.value(),
              Choice.validator(AgeMode.class),
              Importance.MEDIUM,
              "'exact' reads the record at each committed offset for its timestamp (one fetch"
                  + " per partition and distinct offset, batched per tick, cached); 'estimate'"
                  + " interpolates between sampled (log-end offset, time) points like"
                  + " kafka-lag-exporter, for very large fleets, and labels the figure an estimate.")
          .define(
              OLDEST_AGE_READ_TIMEOUT_MS,
              Type.LONG,
              2_000L,
              Range.atLeast(10),
              Importance.LOW,
              "Longest a tick waits for the records at the committed offsets. A partition not read"
                  + " in time reports the age of an older record last read there, labelled an"
                  + " estimate (an overstatement, never a hidden backlog), or none; it is logged and"
                  + " read again next tick.")
          .define(
              OLDEST_AGE_CACHE_MS,
              Type.LONG,
              30_000L,
              Range.atLeast(0),
              Importance.LOW,
              "How long the timestamp read at a committed offset is reused while the group stays"
                  + " there. Timestamps never change, but retention or compaction can delete the"
                  + " record: the age follows the next available record within this time (0 reads"
                  + " every tick).")
          .define(
              UNCOMMITTED_OFFSET_RESET,
              Type.STRING,
              UncommittedOffsetReset.LATEST.value(),
              Choice.validator(UncommittedOffsetReset.class),
              Importance.MEDIUM,
              "The auto.offset.reset of the watched groups, used for partitions a group owns but"
                  + " has never committed: 'earliest' counts the whole retained log as lag.")
          .define(
              PARTITION_METERS,
              Type.BOOLEAN,
              true,
              Importance.LOW,
              "Register the per-partition series (lag, lag seconds, offset, status) as meters in the"
                  + " MeterRegistry. The monitor service turns this off and writes those series"
                  + " straight from the latest tick, which keeps no meter object per"
                  + " partition-group pair (at 100,000 pairs the meters alone filled a 256 MiB heap).")
          .define(
              HTTP_PORT,
              Type.INT,
              9464,
              Range.between(0, 65535),
              Importance.MEDIUM,
              "Port of /metrics, /v1/groups and /health in the monitor service (0 picks a free"
                  + " port).");

  private final ClientSettings clients;

  public MonitorConfig(Map<String, ?> originals) {
    super(CONFIG, originals, false);
    this.clients = ClientSettings.of(this);
    if (staleAfter().compareTo(tickInterval().multipliedBy(2)) < 0) {
      throw new ConfigException(
          STALE_AFTER_MS,
          getLong(STALE_AFTER_MS),
          "must span at least two ticks ("
              + TICK_INTERVAL_MS
              + "="
              + getLong(TICK_INTERVAL_MS)
              + ")");
    }
    if (window().compareTo(tickInterval().multipliedBy(2)) < 0) {
      throw new ConfigException(
          WINDOW_MS,
          getLong(WINDOW_MS),
          "must span at least two ticks ("
              + TICK_INTERVAL_MS
              + "="
              + getLong(TICK_INTERVAL_MS)
              + ")");
    }
  }

  public static ConfigDef configDef() {
    return new ConfigDef(CONFIG);
  }

  public String bootstrapServers() {
    return clients.bootstrapServersValue();
  }

  public List<String> groups() {
    return getList(GROUPS);
  }

  private static void regex(String name, Object value) {
    try {
      Pattern.compile((String) value);
    } catch (PatternSyntaxException e) {
      throw new ConfigException(name, value, "not a regular expression: " + e.getDescription());
    }
  }

  /** The groups to pick from the cluster's listing, or null when only monitor.groups count. */
  public Pattern includePattern() {
    String regex = getString(GROUPS_PATTERN);
    return regex.isEmpty()
        ? (groups().isEmpty() ? Pattern.compile(".*") : null)
        : Pattern.compile(regex);
  }

  public Duration staleAfter() {
    return Duration.ofMillis(getLong(STALE_AFTER_MS));
  }

  public Pattern excludePattern() {
    String regex = getString(GROUPS_EXCLUDE_PATTERN);
    return regex.isEmpty() ? null : Pattern.compile(regex);
  }

  public Duration tickInterval() {
    return Duration.ofMillis(getLong(TICK_INTERVAL_MS));
  }

  public Duration window() {
    return Duration.ofMillis(getLong(WINDOW_MS));
  }

  public AgeMode ageMode() {
    return Choice.of(AgeMode.class, getString(OLDEST_AGE_MODE));
  }

  public boolean estimateAge() {
    return ageMode() == AgeMode.ESTIMATE;
  }

  public Duration ageReadTimeout() {
    return Duration.ofMillis(getLong(OLDEST_AGE_READ_TIMEOUT_MS));
  }

  public Duration ageCacheTtl() {
    return Duration.ofMillis(getLong(OLDEST_AGE_CACHE_MS));
  }

  public UncommittedOffsetReset uncommittedOffsetReset() {
    return Choice.of(UncommittedOffsetReset.class, getString(UNCOMMITTED_OFFSET_RESET));
  }

  public boolean uncommittedFromEarliest() {
    return uncommittedOffsetReset() == UncommittedOffsetReset.EARLIEST;
  }

  public boolean partitionMeters() {
    return getBoolean(PARTITION_METERS);
  }

  public int httpPort() {
    return getInt(HTTP_PORT);
  }

  /** Client settings for the monitor's own Admin client and age reader, checked at start. */
  public ClientSettings clients() {
    return clients;
  }
}
