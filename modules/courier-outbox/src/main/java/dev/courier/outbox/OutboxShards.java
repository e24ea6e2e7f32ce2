package dev.courier.outbox;

import java.nio.charset.StandardCharsets;
import org.apache.kafka.common.utils.Utils;

/**
 * How the outbox is split so that several relays share the load: {@code count} tables, each with
 * its own publication, slot and relay. An event's shard is a hash of its aggregate id, the same
 * murmur2 Kafka's default partitioner uses, so a key always lands in the same table and reaches
 * Kafka through one relay: its events keep their order.
 *
 * <p>Shard 0 is {@code courier_outbox}, the single outbox's table, so a deployment that adds shards
 * keeps its table; shard {@code i > 0} is {@code courier_outbox_<i>}. Changing the count moves keys
 * between shards: drain the outbox (every relay caught up) before writers use the new count, or a
 * key's events written around the change may reach Kafka out of order.
 *
 * @param count how many shards, at least 1
 */
public record OutboxShards(int count) {

  /** The one table of an outbox that is not split. */
  public static final OutboxShards SINGLE = new OutboxShards(1);

  static final String TABLE = "courier_outbox";

  public OutboxShards {
    if (count < 1 || count > 256) {
      throw new IllegalArgumentException("outbox shards must be 1 to 256, not " + count);
    }
  }

  public static OutboxShards of(int count) {
    return new OutboxShards(count);
  }

  /** The shard of an aggregate id; an event without one goes to shard 0 (and is refused there). */
  public int shardOf(String aggregateId) {
    if (count == 1 || aggregateId == null) {
      return 0;
    }
    return Utils.toPositive(Utils.murmur2(aggregateId.getBytes(StandardCharsets.UTF_8))) % count;
  }

  /** The table of a shard. */
  public String table(int shard) {
    if (shard < 0 || shard >= count) {
      throw new IllegalArgumentException("shard " + shard + " of " + count);
    }
    return shard == 0 ? TABLE : TABLE + "_" + shard;
  }
}
