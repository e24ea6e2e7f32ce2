package dev.courier.outbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.common.utils.Utils;
import org.junit.jupiter.api.Test;

class OutboxShardsTest {

  @Test
  void aKeyAlwaysMapsToOneShardAsKafkasDefaultPartitionerMapsItToAPartition() {
    OutboxShards shards = OutboxShards.of(4);
    Map<Integer, Integer> perShard = new HashMap<>();
    for (int i = 0; i < 4_000; i++) {
      String key = "acc-" + i;
      int shard = shards.shardOf(key);
      assertThat(shard).isEqualTo(shards.shardOf(key));
      assertThat(shard)
          .isEqualTo(Utils.toPositive(Utils.murmur2(key.getBytes(StandardCharsets.UTF_8))) % 4);
      perShard.merge(shard, 1, Integer::sum);
    }
    assertThat(perShard).hasSize(4);
    assertThat(perShard.values()).allSatisfy(n -> assertThat(n).isBetween(850, 1150));
  }

  @Test
  void shardZeroIsTheSingleOutboxsTable() {
    assertThat(OutboxShards.SINGLE.table(0)).isEqualTo("courier_outbox");
    assertThat(OutboxShards.SINGLE.shardOf("anything")).isZero();
    assertThat(OutboxShards.of(3).table(0)).isEqualTo("courier_outbox");
    assertThat(OutboxShards.of(3).table(2)).isEqualTo("courier_outbox_2");
    assertThat(OutboxShards.of(3).shardOf(null)).isZero();
    assertThatThrownBy(() -> OutboxShards.of(3).table(3)).hasMessageContaining("shard 3 of 3");
    assertThatThrownBy(() -> OutboxShards.of(0)).hasMessageContaining("1 to 256");
  }
}
