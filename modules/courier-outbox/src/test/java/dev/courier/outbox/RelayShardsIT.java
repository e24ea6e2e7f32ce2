package dev.courier.outbox;

import static org.assertj.core.api.Assertions.assertThat;

import dev.courier.core.CourierHeaders;
import dev.courier.testkit.CourierInfraTest;
import dev.courier.testkit.KafkaBroker;
import dev.courier.testkit.TestDatabase;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.sql.Connection;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;

/**
 * Two shards, two relays: the writer puts each event in its aggregate id's shard, each relay
 * publishes its shard's table only, into the same topics; every event arrives, each key's events in
 * order and all through one relay.
 */
@CourierInfraTest
class RelayShardsIT {

  private static final Duration TIMEOUT = Duration.ofSeconds(90);
  private static final int KEYS = 20;
  private static final int PER_KEY = 5;

  @Test
  void eachKeysEventsGoThroughItsShardsRelayInOrder(KafkaBroker kafka, TestDatabase db)
      throws Exception {
    OutboxShards shards = OutboxShards.of(2);
    OutboxFixture fixture = new OutboxFixture(kafka, db).with(OutboxRelayConfig.SHARD_COUNT, "2");
    Map<String, String> first = new HashMap<>(fixture.settings);
    first.put(OutboxRelayConfig.SHARD_INDEX, "0");
    Map<String, String> second = new HashMap<>(fixture.settings);
    second.put(OutboxRelayConfig.SHARD_INDEX, "1");
    try (OutboxRelay relay0 =
            OutboxRelay.create(first, new SimpleMeterRegistry(), Clock.systemUTC());
        OutboxRelay relay1 =
            OutboxRelay.create(second, new SimpleMeterRegistry(), Clock.systemUTC())) {
      assertThat(relay0.awaitStreaming(TIMEOUT)).isTrue();
      assertThat(relay1.awaitStreaming(TIMEOUT)).isTrue();
      OutboxWriter writer = OutboxWriter.builder().shards(shards).build();
      try (Connection c = db.connection()) {
        c.setAutoCommit(false);
        for (int n = 1; n <= PER_KEY; n++) {
          List<OutboxEvent> round = new ArrayList<>();
          for (int k = 0; k < KEYS; k++) {
            round.add(OutboxRelayIT.credit("acc-" + k, n).build());
          }
          writer.writeAll(c, round);
          c.commit();
        }
      }

      List<ConsumerRecord<String, String>> records =
          OutboxFixture.read(kafka, fixture.topic("account"), KEYS * PER_KEY, TIMEOUT);
      assertThat(records).hasSize(KEYS * PER_KEY);
      Map<String, List<ConsumerRecord<String, String>>> byKey =
          records.stream().collect(Collectors.groupingBy(ConsumerRecord::key));
      assertThat(byKey).hasSize(KEYS);
      Set<Integer> shardsUsed = new java.util.HashSet<>();
      byKey.forEach(
          (key, events) -> {
            assertThat(events)
                .as("events of %s in order", key)
                .extracting(ConsumerRecord::value)
                .containsExactly(
                    "{\"amount\":1}",
                    "{\"amount\":2}",
                    "{\"amount\":3}",
                    "{\"amount\":4}",
                    "{\"amount\":5}");
            int shard = shards.shardOf(key);
            shardsUsed.add(shard);
            assertThat(events)
                .as("%s through the relay of shard %d only", key, shard)
                .allSatisfy(
                    r ->
                        assertThat(OutboxFixture.header(r, CourierHeaders.RELAY))
                            .startsWith(fixture.prefix + "-relay_" + shard + "@"));
          });
      assertThat(shardsUsed).as("both shards carried keys").containsExactlyInAnyOrder(0, 1);
      assertThat(OutboxRelayIT.count(db, "SELECT count(*) FROM courier_outbox_1"))
          .as("remove-after-insert in the shard's table too")
          .isZero();
    }
  }
}
