package dev.courier.outbox;

import dev.courier.core.Choice;
import dev.courier.core.ClientSettings;
import dev.courier.outbox.internal.DatabaseSettings;
import dev.courier.outbox.internal.ShardNames;
import java.net.URI;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Range;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.types.Password;

/** Settings of the {@link OutboxRelay}, declared once with default, validator and doc. */
public final class OutboxRelayConfig extends AbstractConfig {

  public static final String RELAY_NAME = "outbox.relay.name";
  public static final String BOOTSTRAP_SERVERS = ClientSettings.BOOTSTRAP_SERVERS;
  public static final String DATABASE_HOSTNAME = DatabaseSettings.HOSTNAME;
  public static final String DATABASE_PORT = DatabaseSettings.PORT;
  public static final String DATABASE_DBNAME = DatabaseSettings.DBNAME;
  public static final String DATABASE_USER = DatabaseSettings.USER;
  public static final String DATABASE_PASSWORD = DatabaseSettings.PASSWORD;
  public static final String TOPIC_PREFIX = "outbox.topic.prefix";
  public static final String SLOT_NAME = "outbox.slot.name";
  public static final String PUBLICATION_NAME = "outbox.publication.name";
  public static final String OFFSET_STORAGE_TOPIC = "outbox.offset.storage.topic";
  public static final String OFFSET_FLUSH_INTERVAL_MS = "outbox.offset.flush.interval.ms";
  public static final String HEARTBEAT_INTERVAL_MS = "outbox.heartbeat.interval.ms";
  public static final String INVALID_ROW_POLICY = "outbox.invalid.row.policy";
  public static final String MAX_BATCH_SIZE = "outbox.max.batch.size";
  public static final String MAX_QUEUE_SIZE = "outbox.max.queue.size";
  public static final String DELIVERY_TIMEOUT_MS = "outbox.delivery.timeout.ms";
  public static final String POLL_INTERVAL_MS = "outbox.poll.interval.ms";
  public static final String DATABASE_SSLMODE = DatabaseSettings.SSLMODE;
  public static final String DATABASE_SSLROOTCERT = DatabaseSettings.SSLROOTCERT;
  public static final String DATABASE_SSLCERT = DatabaseSettings.SSLCERT;
  public static final String DATABASE_SSLKEY = DatabaseSettings.SSLKEY;
  public static final String DATABASE_SSLPASSWORD = DatabaseSettings.SSLPASSWORD;
  public static final String OFFSET_STORAGE_PARTITIONS = "outbox.offset.storage.partitions";
  public static final String OFFSET_STORAGE_REPLICATION_FACTOR =
      "outbox.offset.storage.replication.factor";
  public static final String POSTGRES_RECONNECT_INTERVAL_MS =
      "outbox.postgres.reconnect.interval.ms";
  public static final String STARTUP_BACKOFF_MAX_MS = "outbox.startup.backoff.max.ms";
  public static final String HEALTH_ACK_TIMEOUT_MS = "outbox.health.ack.timeout.ms";
  public static final String SLOT_GAP_POLICY = "outbox.slot.gap.policy";
  public static final String SLOT_FAILOVER = "outbox.slot.failover";
  public static final String SHARD_COUNT = "outbox.shard.count";
  public static final String SHARD_INDEX = "outbox.shard.index";
  public static final String LEADER_LEASE_MS = "outbox.leader.lease.ms";
  public static final String LEADER_POLL_INTERVAL_MS = "outbox.leader.poll.interval.ms";
  public static final String STANDBY_PRELOAD = "outbox.standby.preload";

  /** PostgreSQL's rule for replication slot names; checked here so a bad one exits 2 at start. */
  private static final ConfigDef.Validator VALID_SLOT_NAME =
      ConfigDef.LambdaValidator.with(
          (name, value) -> {
            if (!(value instanceof String slot) || !slot.matches("[a-z0-9_]{1,63}")) {
              throw new ConfigException(
                  name,
                  value,
                  "a replication slot name has only lower-case letters, digits and '_', at most 63");
            }
          },
          () -> "lower-case letters, digits and _, at most 63 characters");

  private static final ConfigDef CONFIG =
      DatabaseSettings.define(ClientSettings.define(new ConfigDef()))
          .define(
              RELAY_NAME,
              Type.STRING,
              "courier-outbox-relay",
              new ConfigDef.NonEmptyString(),
              Importance.MEDIUM,
              "Name of the relay (the Debezium engine name, and the key of its stored offsets).")
          .define(
              TOPIC_PREFIX,
              Type.STRING,
              "outbox",
              new ConfigDef.NonEmptyString(),
              Importance.HIGH,
              "Events go to <prefix>.<aggregatetype>; invalid rows to <prefix>.outbox.dlt.")
          .define(
              SLOT_NAME,
              Type.STRING,
              "courier_outbox",
              VALID_SLOT_NAME,
              Importance.MEDIUM,
              "Logical replication slot (created on first start; it holds WAL until events are relayed).")
          .define(
              PUBLICATION_NAME,
              Type.STRING,
              "courier_outbox_pub",
              new ConfigDef.NonEmptyString(),
              Importance.MEDIUM,
              "Publication limited to the outbox and heartbeat tables.")
          .define(
              OFFSET_STORAGE_TOPIC,
              Type.STRING,
              "courier-outbox-offsets",
              new ConfigDef.NonEmptyString(),
              Importance.MEDIUM,
              "Compacted topic where the relay stores its source offsets.")
          .define(
              OFFSET_STORAGE_PARTITIONS,
              Type.INT,
              1,
              Range.atLeast(1),
              Importance.LOW,
              "Partitions of the offset topic when the relay creates it.")
          .define(
              OFFSET_STORAGE_REPLICATION_FACTOR,
              Type.SHORT,
              (short) -1,
              Range.between(-1, Short.MAX_VALUE),
              Importance.MEDIUM,
              "Replication factor of the offset topic when the relay creates it; -1 takes the"
                  + " broker's default.replication.factor. An existing offset topic must be"
                  + " compacted.")
          .define(
              OFFSET_FLUSH_INTERVAL_MS,
              Type.LONG,
              250L,
              Range.atLeast(0),
              Importance.LOW,
              "How often acknowledged positions are stored; events after the last stored position"
                  + " are re-sent (with their ids) after a crash, so this bounds what a restart"
                  + " sends again (0 stores after every batch).")
          .define(
              HEARTBEAT_INTERVAL_MS,
              Type.INT,
              10_000,
              Range.atLeast(0),
              Importance.MEDIUM,
              "Heartbeat interval; each heartbeat writes a row so an idle outbox does not pin WAL"
                  + " (0 turns heartbeats off).")
          .define(
              INVALID_ROW_POLICY,
              Type.STRING,
              InvalidRowPolicy.FAIL.value(),
              Choice.validator(InvalidRowPolicy.class),
              Importance.HIGH,
              "What to do with a row Kafka refuses for good (no aggregate id, too large, a"
                  + " topic name Kafka does not allow, any other non-retriable error): 'fail' stops"
                  + " the relay naming the row, nothing skipped; 'dead-letter' sends an envelope"
                  + " (event id, aggregate, type, size, reason, and the payload when it fits) to"
                  + " <prefix>.outbox.dlt and goes on.")
          .define(
              SLOT_GAP_POLICY,
              Type.STRING,
              SlotGapPolicy.FAIL.value(),
              Choice.validator(SlotGapPolicy.class),
              Importance.MEDIUM,
              "What to do when the replication slot is not the one the relay's stored position"
                  + " came from (dropped, recreated, or lost in a PostgreSQL failover): 'fail'"
                  + " refuses to start, since changes committed in between are gone; 'accept'"
                  + " goes on from the slot's position, logs the gap and counts it in"
                  + " courier_outbox_slot_gaps_total.")
          .define(
              POSTGRES_RECONNECT_INTERVAL_MS,
              Type.INT,
              500,
              Range.atLeast(100),
              Importance.LOW,
              "After PostgreSQL is lost while streaming, how often the relay tries to stream again"
                  + " (Debezium's retriable.restart.connector.wait.ms, 10 s by default there):"
                  + " delivery resumes at most this long after PostgreSQL accepts connections.")
          .define(
              STARTUP_BACKOFF_MAX_MS,
              Type.LONG,
              30_000L,
              Range.atLeast(100),
              Importance.LOW,
              "While PostgreSQL or Kafka is unreachable at start, the relay waits and tries again"
                  + " with a doubling delay up to this (an outage is never a reason to exit).")
          .define(
              HEALTH_ACK_TIMEOUT_MS,
              Type.LONG,
              30_000L,
              Range.atLeast(1_000),
              Importance.MEDIUM,
              "/health answers 503 while events wait longer than this for Kafka's"
                  + " acknowledgement (the relay keeps sending them).")
          .define(
              DELIVERY_TIMEOUT_MS,
              Type.INT,
              120_000,
              Range.atLeast(2_000),
              Importance.LOW,
              "How long the producer tries one send before the relay sends it again (Kafka's"
                  + " delivery.timeout.ms); the relay itself never gives up on a committed event.")
          .define(
              POLL_INTERVAL_MS,
              Type.INT,
              10,
              Range.atLeast(1),
              Importance.LOW,
              "Longest wait for more changes before a batch is relayed, and the pause of an idle"
                  + " stream (Debezium's poll.interval.ms): lower means less latency per event and"
                  + " more CPU while idle. At 1,000 events/s here: 5 ms gave p99 34 ms with 20% of"
                  + " a core idle, 10 ms p99 39 ms with 13%, 20 ms p99 62 ms with 8%.")
          .define(
              MAX_BATCH_SIZE,
              Type.INT,
              2048,
              Range.between(1, 100_000),
              Importance.LOW,
              "Most change events handed to the relay per batch.")
          .define(
              MAX_QUEUE_SIZE,
              Type.INT,
              8192,
              Range.between(2, 1_000_000),
              Importance.LOW,
              "Most change events Debezium's streaming thread decodes ahead of the relay"
                  + " (Debezium's max.queue.size; above "
                  + MAX_BATCH_SIZE
                  + "): it goes on decoding while the relay waits for Kafka's acknowledgements.")
          .define(
              LEADER_LEASE_MS,
              Type.LONG,
              10_000L,
              Range.between(2_000, 600_000),
              Importance.MEDIUM,
              "Relays with the same slot elect one leader through a PostgreSQL advisory lock held"
                  + " on a connection of its own. PostgreSQL ends that connection when the leader"
                  + " has not renewed it for this long (idle_session_timeout, so a frozen leader"
                  + " loses the lock), and a leader stops publishing on its own once half of it"
                  + " has passed without a renewal. Shorter is a faster takeover from a frozen"
                  + " leader; a killed leader's lock is freed at once whatever this is.")
          .define(
              LEADER_POLL_INTERVAL_MS,
              Type.INT,
              500,
              Range.between(50, 60_000),
              Importance.LOW,
              "How long a standby relay waits on the leadership lock at a time (at most 1 s),"
                  + " and how often it asks again when a wait ends early: the lock is granted the"
                  + " moment the leader's session ends, so a takeover after the leader dies costs"
                  + " the engine's start; the leader renews its lease this often (at most a fifth"
                  + " of outbox.leader.lease.ms).")
          .define(
              STANDBY_PRELOAD,
              Type.BOOLEAN,
              true,
              Importance.LOW,
              "Whether a standby relay loads and links, in the background while it waits, the"
                  + " classes of Debezium, Kafka Connect and the JDBC driver that a relay loads"
                  + " between winning the lock and its first batch, so its takeover does not"
                  + " (about a thousand; no static initializer runs).")
          .define(
              SLOT_FAILOVER,
              Type.BOOLEAN,
              false,
              Importance.LOW,
              "Create the replication slot as a failover slot (PostgreSQL 17+, Debezium's"
                  + " slot.failover) so it survives the promotion of a standby that runs"
                  + " sync_replication_slots = on. Ignored by PostgreSQL 16 and earlier, where a"
                  + " promotion loses the slot and the relay refuses to go on silently"
                  + " (outbox.slot.gap.policy).")
          .define(
              SHARD_COUNT,
              Type.INT,
              1,
              Range.between(1, 256),
              Importance.MEDIUM,
              "Shards of the outbox (OutboxShards): tables courier_outbox and courier_outbox_<i>,"
                  + " each relayed by its own relay, with its own slot and publication; writers"
                  + " route each event by its aggregate id and must use the same count.")
          .define(
              SHARD_INDEX,
              Type.INT,
              0,
              Range.between(0, 255),
              Importance.MEDIUM,
              "The shard this relay publishes, below outbox.shard.count. With more than one shard,"
                  + " the slot, publication, offset topic and relay name get the suffix _<index>"
                  + " (set the base names; a StatefulSet can take the index from its pod's"
                  + " ordinal).");

  private final ClientSettings clients;

  public OutboxRelayConfig(Map<String, ?> originals) {
    super(CONFIG, ShardNames.apply(originals, CONFIG.defaultValues()), false);
    this.clients = ClientSettings.of(this);
    if (getInt(SHARD_INDEX) >= getInt(SHARD_COUNT)) {
      throw new ConfigException(
          SHARD_INDEX,
          getInt(SHARD_INDEX),
          "must be below " + SHARD_COUNT + "=" + getInt(SHARD_COUNT));
    }
    if (getInt(MAX_QUEUE_SIZE) <= getInt(MAX_BATCH_SIZE)) {
      // Debezium refuses it too, but only once the engine starts, after leadership is won.
      throw new ConfigException(
          MAX_QUEUE_SIZE,
          getInt(MAX_QUEUE_SIZE),
          "must be above " + MAX_BATCH_SIZE + "=" + getInt(MAX_BATCH_SIZE));
    }
    DatabaseSettings.check(this);
  }

  /** How the outbox is split, and the table this relay publishes. */
  public OutboxShards shards() {
    return OutboxShards.of(getInt(SHARD_COUNT));
  }

  /** The outbox table this relay reads: its shard's. */
  public String table() {
    return shards().table(getInt(SHARD_INDEX));
  }

  /** The Kafka client settings: {@code bootstrap.servers} and every {@code kafka.*}. */
  public ClientSettings clients() {
    return clients;
  }

  public InvalidRowPolicy invalidRowPolicy() {
    return InvalidRowPolicy.of(getString(INVALID_ROW_POLICY));
  }

  public SlotGapPolicy slotGapPolicy() {
    return SlotGapPolicy.of(getString(SLOT_GAP_POLICY));
  }

  /**
   * The CDC engine's name for the outbox tables' topic prefix (the offset key's server); a shard's
   * own, so that two shards' engines in one JVM do not share their JMX names.
   */
  public String cdcPrefix() {
    return prefix() + "-cdc" + (getInt(SHARD_COUNT) > 1 ? "_" + getInt(SHARD_INDEX) : "");
  }

  /**
   * Settings for a relay named after {@code prefix} (topics {@code <prefix>.<aggregatetype>}, slot
   * {@code <prefix>_slot}, publication {@code <prefix>_pub} with any character PostgreSQL refuses
   * in a slot name turned into {@code _}, offsets {@code <prefix>.offsets}) on the database of a
   * JDBC URL such as {@code jdbc:postgresql://db:5432/app}.
   */
  public static Map<String, String> settings(
      String bootstrapServers, String jdbcUrl, String user, String password, String prefix) {
    if (!jdbcUrl.startsWith("jdbc:postgresql://")) {
      throw new ConfigException(DATABASE_HOSTNAME, jdbcUrl, "not a jdbc:postgresql:// URL");
    }
    URI uri = URI.create(jdbcUrl.substring("jdbc:".length()));
    Map<String, String> settings = new HashMap<>();
    settings.put(RELAY_NAME, prefix + "-relay");
    settings.put(BOOTSTRAP_SERVERS, bootstrapServers);
    settings.put(DATABASE_HOSTNAME, uri.getHost());
    settings.put(DATABASE_PORT, String.valueOf(uri.getPort() < 0 ? 5432 : uri.getPort()));
    settings.put(DATABASE_DBNAME, uri.getPath().substring(1));
    settings.put(DATABASE_USER, user);
    settings.put(DATABASE_PASSWORD, password);
    settings.put(TOPIC_PREFIX, prefix);
    // Topic names allow '-' and '.', slot names do not: the prefix becomes a legal identifier.
    String identifier = prefix.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9_]", "_");
    identifier = identifier.substring(0, Math.min(identifier.length(), 58));
    settings.put(SLOT_NAME, identifier + "_slot");
    settings.put(PUBLICATION_NAME, identifier + "_pub");
    settings.put(OFFSET_STORAGE_TOPIC, prefix + ".offsets");
    return settings;
  }

  public static ConfigDef configDef() {
    return new ConfigDef(CONFIG);
  }

  public String prefix() {
    return getString(TOPIC_PREFIX);
  }

  public String deadLetterTopic() {
    return prefix() + ".outbox.dlt";
  }

  public String jdbcUrl() {
    return DatabaseSettings.jdbcUrl(this);
  }

  public Password password() {
    return getPassword(DATABASE_PASSWORD);
  }
}
