package dev.courier.outbox.internal;

import dev.courier.outbox.OutboxRelayConfig;
import java.util.Properties;

/** The Debezium engine's settings for tailing the outbox table with pgoutput. */
public final class EngineProperties {

  /** The table of an outbox that is not sharded; a shard's relay reads {@code config.table()}. */
  public static final String OUTBOX_TABLE = "public.courier_outbox";

  public static final String HEARTBEAT_TABLE = "public.courier_outbox_heartbeat";

  private EngineProperties() {}

  /** The settings of a relay whose engine stores positions only while it leads. */
  public static Properties of(OutboxRelayConfig config, String offsetFence) {
    Properties p = of(config);
    p.setProperty(FencedOffsetStore.FENCE, offsetFence);
    p.setProperty(FencedOffsetStore.TRANSACTIONAL_ID, positionsTransactionalId(config));
    // Positions are written in transactions; one a fenced leader left open is never read.
    p.setProperty("isolation.level", "read_committed");
    return p;
  }

  /**
   * The transactional id every replica of one relay stores its positions under ({@link
   * PositionWriter}): {@code <outbox.relay.name>.positions.<cdc prefix>}, so a prefixed ACL on the
   * relay's name covers it.
   */
  public static String positionsTransactionalId(OutboxRelayConfig config) {
    return config.getString(OutboxRelayConfig.RELAY_NAME) + ".positions." + config.cdcPrefix();
  }

  /** The settings of an engine that stores its positions unfenced (a lone relay, a benchmark). */
  public static Properties of(OutboxRelayConfig config) {
    Properties p = new Properties();
    p.setProperty("name", config.getString(OutboxRelayConfig.RELAY_NAME));
    p.setProperty("connector.class", "io.debezium.connector.postgresql.PostgresConnector");
    p.setProperty("topic.prefix", config.cdcPrefix());
    p.setProperty("database.hostname", config.getString(OutboxRelayConfig.DATABASE_HOSTNAME));
    p.setProperty("database.port", String.valueOf(config.getInt(OutboxRelayConfig.DATABASE_PORT)));
    p.setProperty("database.dbname", config.getString(OutboxRelayConfig.DATABASE_DBNAME));
    p.setProperty("database.user", config.getString(OutboxRelayConfig.DATABASE_USER));
    p.setProperty("database.password", config.password().value());
    p.setProperty("database.sslmode", config.getString(OutboxRelayConfig.DATABASE_SSLMODE));
    for (String key :
        new String[] {
          OutboxRelayConfig.DATABASE_SSLROOTCERT,
          OutboxRelayConfig.DATABASE_SSLCERT,
          OutboxRelayConfig.DATABASE_SSLKEY
        }) {
      if (config.getString(key) != null) {
        p.setProperty(key, config.getString(key));
      }
    }
    if (config.getPassword(OutboxRelayConfig.DATABASE_SSLPASSWORD) != null) {
      p.setProperty(
          OutboxRelayConfig.DATABASE_SSLPASSWORD,
          config.getPassword(OutboxRelayConfig.DATABASE_SSLPASSWORD).value());
    }
    p.setProperty("plugin.name", "pgoutput");
    p.setProperty("slot.name", config.getString(OutboxRelayConfig.SLOT_NAME));
    p.setProperty(
        "slot.failover", String.valueOf(config.getBoolean(OutboxRelayConfig.SLOT_FAILOVER)));
    p.setProperty("publication.name", config.getString(OutboxRelayConfig.PUBLICATION_NAME));
    p.setProperty("publication.autocreate.mode", "filtered");
    // The relay needs inserts (events) and updates (heartbeats) only. Skipping deletes makes
    // Debezium create (or alter) the publication with publish = 'insert,update', so PostgreSQL no
    // longer sends the delete of every row remove-after-insert takes away: decoding those was a
    // third of the streaming thread's time, and emitting them more.
    p.setProperty("skipped.operations", "d,t");
    // The heartbeat table is in the publication so heartbeats move the slot even when idle.
    p.setProperty("table.include.list", "public." + config.table() + "," + HEARTBEAT_TABLE);
    // Nothing reads created_at from the stream, and a timestamptz costs Debezium a parse of
    // PostgreSQL's text and a format back to ISO-8601 per event (9% of a saturated relay's CPU).
    p.setProperty("column.exclude.list", "public." + config.table() + ".created_at");
    p.setProperty("snapshot.mode", "no_data");
    p.setProperty("tombstones.on.delete", "false");
    p.setProperty("extended.headers.enabled", "false");
    p.setProperty(
        "max.batch.size", String.valueOf(config.getInt(OutboxRelayConfig.MAX_BATCH_SIZE)));
    p.setProperty(
        "max.queue.size", String.valueOf(config.getInt(OutboxRelayConfig.MAX_QUEUE_SIZE)));
    // Debezium waits up to poll.interval.ms (500 ms by default) for a batch to fill; an outbox
    // wants each commit out quickly, and a full batch is handed over at once anyway.
    p.setProperty(
        "poll.interval.ms", String.valueOf(config.getInt(OutboxRelayConfig.POLL_INTERVAL_MS)));
    int heartbeat = config.getInt(OutboxRelayConfig.HEARTBEAT_INTERVAL_MS);
    if (heartbeat > 0) {
      p.setProperty("heartbeat.interval.ms", String.valueOf(heartbeat));
      p.setProperty(
          "heartbeat.action.query",
          "INSERT INTO courier_outbox_heartbeat (id, beat_at) VALUES (1, now())"
              + " ON CONFLICT (id) DO UPDATE SET beat_at = EXCLUDED.beat_at");
    }
    // Debezium's offset store (its producer, consumer and Admin) takes the engine's properties as
    // its client settings: every kafka.* setting reaches it too.
    config.clients().all().forEach((k, v) -> p.setProperty(k, String.valueOf(v)));
    // Kafka's store, fenced by of(config, fence): a relay that lost the leadership stores no
    // position.
    p.setProperty("offset.storage", FencedOffsetStore.class.getName());
    p.setProperty("offset.storage.topic", config.getString(OutboxRelayConfig.OFFSET_STORAGE_TOPIC));
    p.setProperty(
        "offset.storage.partitions",
        String.valueOf(config.getInt(OutboxRelayConfig.OFFSET_STORAGE_PARTITIONS)));
    p.setProperty(
        "offset.storage.replication.factor",
        String.valueOf(config.getShort(OutboxRelayConfig.OFFSET_STORAGE_REPLICATION_FACTOR)));
    p.setProperty(
        "offset.flush.interval.ms",
        String.valueOf(config.getLong(OutboxRelayConfig.OFFSET_FLUSH_INTERVAL_MS)));
    // PostgreSQL lost while streaming: Debezium stops the task and starts it again after this
    // wait, for ever; at its 10 s default, delivery stalled that long after PostgreSQL was back.
    int reconnect = config.getInt(OutboxRelayConfig.POSTGRES_RECONNECT_INTERVAL_MS);
    p.setProperty("retriable.restart.connector.wait.ms", String.valueOf(reconnect));
    p.setProperty("errors.max.retries", "-1");
    // Debezium's own connections (the replication stream, its queries) find a vanished peer
    // through keepalive probes, as the relay's do (PostgresAccess).
    p.setProperty("database.tcpKeepAlive", "true");
    p.setProperty("errors.retry.delay.initial.ms", String.valueOf(Math.min(300, reconnect)));
    p.setProperty("errors.retry.delay.max.ms", String.valueOf(reconnect));
    // The relay checks the slot against its stored position before it starts (SlotIdentity);
    // Debezium's own check backs that up: it refuses a slot ahead of the stored offset.
    p.setProperty(
        "offset.mismatch.strategy",
        config.slotGapPolicy() == dev.courier.outbox.SlotGapPolicy.ACCEPT
            ? "trust_greater_lsn"
            : "trust_offset");
    return p;
  }
}
