package dev.courier.retry.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

class KeyChainsTest {

  private static final TopicPartition TP = new TopicPartition("orders", 3);
  private static final Instant T0 = Instant.parse("2026-12-04T10:00:00Z");

  private static byte[] key(String k) {
    return k.getBytes(StandardCharsets.UTF_8);
  }

  private static ConsumerRecord<byte[], byte[]> record(String k, long offset) {
    return new ConsumerRecord<>(TP.topic(), TP.partition(), offset, key(k), key("v" + offset));
  }

  @Test
  void aKeyIsFreeUntilOneOfItsRecordsGoesToATierThenItsLaterRecordsWaitInOrder() {
    KeyChains chains = new KeyChains(10, 10);
    assertThat(chains.admit(TP, key("a"), 5)).isEqualTo(KeyAdmission.FREE);
    chains.block(TP, key("a"), 5, T0);
    assertThat(chains.admit(TP, key("b"), 6)).isEqualTo(KeyAdmission.FREE);
    assertThat(chains.admit(TP, key("a"), 7)).isEqualTo(KeyAdmission.WAIT);
    chains.follow(TP, record("a", 7), T0);
    chains.follow(TP, record("a", 9), T0);
    assertThat(chains.admit(TP, key("a"), 5))
        .as("the head read again")
        .isEqualTo(KeyAdmission.FREE);
    assertThat(chains.admit(TP, key("a"), 4))
        .as("before the head: done")
        .isEqualTo(KeyAdmission.SEEN);
    assertThat(chains.admit(TP, key("a"), 9)).as("held already").isEqualTo(KeyAdmission.SEEN);
    assertThat(chains.admit(TP, null, 10)).as("null keys never wait").isEqualTo(KeyAdmission.FREE);
    assertThat(chains.waitingRecords(TP)).isEqualTo(2);
    assertThat(chains.headed(TP, key("a"), 5)).isPresent();
    assertThat(chains.headed(TP, key("a"), 7)).isEmpty();
  }

  @Test
  void aHeadWhoseTierCopyCameBackIsNotHandledAgainWhenTheMainTopicIsReadAgain() {
    KeyChains chains = new KeyChains(10, 10);
    chains.block(TP, key("a"), 5, T0);
    chains.follow(TP, record("a", 7), T0);
    assertThat(chains.headCopyTaken(TP, key("a"), 4)).as("a copy of another record").isEmpty();
    assertThat(chains.headCopyTaken(TP, key("a"), 5)).isPresent();
    assertThat(chains.admit(TP, key("a"), 5))
        .as("its copy is in hand: handling it here too would call or park it twice")
        .isEqualTo(KeyAdmission.SEEN);
    chains.drain(chains.chain(TP, key("a")).orElseThrow());
    chains.released(chains.releasing(TP, key("a"), 7).orElseThrow());
    chains.block(TP, key("a"), 7, T0.plusSeconds(1)).orElseThrow();
    assertThat(chains.admit(TP, key("a"), 7))
        .as("a new head starts without a copy in hand")
        .isEqualTo(KeyAdmission.FREE);
  }

  @Test
  void aHeadHandledAgainFromTheMainTopicLeavesItsTierCopyUncalledUntilItIsForwardedAgain() {
    KeyChains chains = new KeyChains(10, 10);
    chains.block(TP, key("a"), 5, T0);
    assertThat(chains.admit(TP, key("a"), 5))
        .as("no copy taken yet: the forward may not have been delivered")
        .isEqualTo(KeyAdmission.FREE);
    assertThat(chains.headCopyTaken(TP, key("a"), 5))
        .as("the head is in hand from the main topic: its old copy is stale")
        .isEmpty();
    chains.block(TP, key("a"), 5, T0); // it failed again and was forwarded again
    assertThat(chains.headCopyTaken(TP, key("a"), 5))
        .as("a copy is the one its key waits for again")
        .isPresent();
  }

  @Test
  void aDrainingKeyReleasesInOrderAndAReleasedRecordThatFailsBecomesTheHead() {
    KeyChains chains = new KeyChains(10, 10);
    KeyChain c = chains.block(TP, key("a"), 5, T0).orElseThrow();
    chains.follow(TP, record("a", 7), T0);
    chains.follow(TP, record("a", 9), T0);
    chains.drain(c);
    assertThat(chains.draining()).containsExactly(c);
    assertThat(chains.admit(TP, key("a"), 11))
        .as("still in line while it drains")
        .isEqualTo(KeyAdmission.WAIT);
    assertThat(chains.releasing(TP, key("a"), 9)).as("not first in line").isEmpty();
    chains.released(chains.releasing(TP, key("a"), 7).orElseThrow());
    chains.block(TP, key("a"), 9, T0.plusSeconds(1)).orElseThrow();
    assertThat(c.head()).contains(9L);
    assertThat(c.waiting()).isEmpty();
    assertThat(chains.waitingRecords(TP)).isZero();
    chains.drain(c);
    assertThat(chains.gone(c)).isTrue();
    assertThat(chains.admit(TP, key("a"), 12)).isEqualTo(KeyAdmission.FREE);
  }

  @Test
  void boundsAreReportedNotGrown() {
    KeyChains chains = new KeyChains(2, 1);
    chains.block(TP, key("a"), 1, T0);
    chains.follow(TP, record("a", 2), T0);
    assertThat(chains.admit(TP, key("a"), 3)).isEqualTo(KeyAdmission.OVERFLOW);
    chains.block(TP, key("b"), 4, T0);
    assertThat(chains.admit(TP, key("c"), 5)).isEqualTo(KeyAdmission.FULL);
    assertThat(chains.belowBounds(TP)).isFalse();
    assertThat(chains.park(chains.chain(TP, key("a")).orElseThrow()))
        .extracting(KeyChain.Waiting::offset)
        .containsExactly(2L);
    assertThat(chains.belowBounds(TP)).isTrue();
    assertThat(chains.oldest()).contains(T0);
  }

  @Test
  void aChainSurvivesItsRecordInKafka() {
    KeyChains chains = new KeyChains(10, 10);
    KeyChain c = chains.block(TP, key("k\u00e9y"), 5, T0).orElseThrow();
    chains.follow(TP, record("k\u00e9y", 7), T0);
    chains.follow(TP, record("k\u00e9y", 8), T0);
    byte[] stateKey = ChainRecords.key(TP.partition(), key("k\u00e9y"));
    assertThat(ChainRecords.partitionOf(stateKey)).isEqualTo(3);
    KeyChain back = ChainRecords.chain(TP, stateKey, ChainRecords.value(c));
    assertThat(back.key()).isEqualTo(c.key());
    assertThat(back.head()).contains(5L);
    assertThat(back.seen()).isEqualTo(8);
    assertThat(back.since()).isEqualTo(T0);
    assertThat(back.waiting()).extracting(KeyChain.Waiting::offset).containsExactly(7L, 8L);
    assertThat(back.waiting()).extracting(KeyChain.Waiting::record).containsOnlyNulls();
    KeyChains restored = new KeyChains(10, 10);
    restored.restore(TP, List.of(back));
    assertThat(restored.waitingRecords(TP)).isEqualTo(2);
    assertThat(restored.admit(TP, key("k\u00e9y"), 8)).isEqualTo(KeyAdmission.SEEN);
    assertThat(restored.admit(TP, key("k\u00e9y"), 9)).isEqualTo(KeyAdmission.WAIT);
  }

  @Test
  void aKeyThatWentStaysDoneUpToItsLastRecordUntilThePartitionIsCommittedPastIt() {
    KeyChains chains = new KeyChains(1, 10);
    chains.block(TP, key("a"), 5, T0);
    chains.follow(TP, record("a", 7), T0);
    chains.follow(TP, record("a", 9), T0);
    chains.park(chains.chain(TP, key("a")).orElseThrow());
    assertThat(chains.chain(TP, key("a"))).isEmpty();
    assertThat(chains.doneUpTo(TP, key("a"))).contains(9L);
    assertThat(chains.admit(TP, key("a"), 5))
        .as("its head read again")
        .isEqualTo(KeyAdmission.SEEN);
    assertThat(chains.admit(TP, key("a"), 7)).as("parked, read again").isEqualTo(KeyAdmission.SEEN);
    assertThat(chains.admit(TP, key("a"), 10)).isEqualTo(KeyAdmission.FREE);
    assertThat(chains.admit(TP, key("b"), 11))
        .as("a done key is not a blocked one")
        .isEqualTo(KeyAdmission.FREE);
    assertThat(chains.committed(TP, 9)).isEmpty();
    assertThat(chains.committed(TP, 10)).containsExactly(new ChainKey(key("a")));
    assertThat(chains.admit(TP, key("a"), 7)).isEqualTo(KeyAdmission.FREE);
  }

  @Test
  void aDrainedKeyIsDoneAndANewChainOfItCarriesTheMarkOn() {
    KeyChains chains = new KeyChains(10, 10);
    KeyChain c = chains.block(TP, key("a"), 5, T0).orElseThrow();
    chains.follow(TP, record("a", 7), T0);
    chains.drain(c);
    chains.released(chains.releasing(TP, key("a"), 7).orElseThrow());
    assertThat(chains.gone(c)).isTrue();
    assertThat(chains.doneUpTo(TP, key("a"))).contains(7L);
    KeyChain next = chains.block(TP, key("a"), 12, T0).orElseThrow();
    assertThat(chains.doneUpTo(TP, key("a"))).isEmpty();
    assertThat(chains.admit(TP, key("a"), 7)).isEqualTo(KeyAdmission.SEEN);
    chains.drain(next);
    assertThat(chains.doneUpTo(TP, key("a"))).contains(12L);
  }

  @Test
  void aBlockedKeysHeadIsNeverTakenOverAndARecordCalledBeforeItBlockedWaitsInOrder() {
    KeyChains chains = new KeyChains(10, 10);
    KeyChain c = chains.block(TP, key("a"), 5, T0).orElseThrow();
    chains.follow(TP, record("a", 9), T0);
    assertThat(chains.block(TP, key("a"), 7, T0)).as("another head already").isEmpty();
    chains.insertWaiting(TP, record("a", 7));
    assertThat(c.head()).contains(5L);
    assertThat(c.waiting()).extracting(KeyChain.Waiting::offset).containsExactly(7L, 9L);
    assertThat(chains.waitingRecords(TP)).isEqualTo(2);
  }

  @Test
  void aReleasedHeadWhoseForwardWasNotDeliveredGoesBackFirstInLine() {
    KeyChains chains = new KeyChains(10, 10);
    KeyChain c = chains.block(TP, key("a"), 5, T0).orElseThrow();
    chains.follow(TP, record("a", 7), T0);
    chains.follow(TP, record("a", 9), T0);
    chains.drain(c);
    chains.block(TP, key("a"), 7, T0).orElseThrow();
    assertThat(c.releasedHead).isTrue();
    chains.unrelease(c, record("a", 7));
    assertThat(c.draining()).isTrue();
    assertThat(c.waiting()).extracting(KeyChain.Waiting::offset).containsExactly(7L, 9L);
    assertThat(chains.draining()).containsExactly(c);
  }

  @Test
  void aRefusedReleasedRecordHoldsItsKeyUntilKafkaHasItsLetter() {
    KeyChains chains = new KeyChains(10, 10);
    KeyChain c = chains.block(TP, key("a"), 5, T0).orElseThrow();
    chains.follow(TP, record("a", 7), T0);
    chains.drain(c);
    chains.letterInFlight(c, 7);
    chains.released(c);
    assertThat(chains.gone(c)).as("held for its letter").isFalse();
    assertThat(chains.admit(TP, key("a"), 11)).isEqualTo(KeyAdmission.WAIT);
    chains.follow(TP, record("a", 11), T0);
    assertThat(chains.draining()).as("not released before the letter is taken").isEmpty();
    chains.letterDelivered(c);
    assertThat(chains.draining()).containsExactly(c);
  }

  @Test
  void aRecordPreparedToWaitBehindAChainThatWentToTheDltFollowsIt() {
    KeyChains chains = new KeyChains(10, 10);
    chains.block(TP, key("a"), 5, T0).orElseThrow();
    chains.follow(TP, record("a", 7), T0);
    chains.park(chains.chain(TP, key("a")).orElseThrow());
    assertThat(chains.parkedBlocker(TP, key("a"))).contains("orders-3@5");
    chains.doneAlso(TP, key("a"), 12);
    assertThat(chains.doneUpTo(TP, key("a"))).contains(12L);
    assertThat(chains.admit(TP, key("a"), 12)).isEqualTo(KeyAdmission.SEEN);
    chains.committed(TP, 13);
    assertThat(chains.parkedBlocker(TP, key("a"))).isEmpty();
  }

  @Test
  void aDoneMarkSurvivesInKafkaAndHoldsNoKey() {
    byte[] stateKey = ChainRecords.key(TP.partition(), key("a"));
    KeyChains restored = new KeyChains(1, 10);
    restored.restore(TP, List.of(ChainRecords.chain(TP, stateKey, ChainRecords.done(9))));
    assertThat(restored.blockedKeys(TP)).isZero();
    assertThat(restored.draining()).isEmpty();
    assertThat(restored.admit(TP, key("a"), 9)).isEqualTo(KeyAdmission.SEEN);
    assertThat(restored.admit(TP, key("a"), 10)).isEqualTo(KeyAdmission.FREE);
    assertThat(restored.admit(TP, key("b"), 3)).isEqualTo(KeyAdmission.FREE);
  }
}
