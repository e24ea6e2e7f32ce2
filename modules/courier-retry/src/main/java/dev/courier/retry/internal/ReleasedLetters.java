package dev.courier.retry.internal;

import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Future;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Forwards of records released from behind their key that are still on their way: the record's
 * offset is committed already, so one Kafka does not take cannot be read again from its partition
 * (that would repeat every record since). It goes back first in its key's line instead, and the
 * key's next records wait until Kafka has taken a released record's dead letter.
 */
final class ReleasedLetters {

  private static final Logger LOG = LoggerFactory.getLogger(ReleasedLetters.class);

  private final KeyChains chains;
  private final LadderPublisher publisher;
  private final ChainWrites writes;
  private final Map<KeyChain, Future<RecordMetadata>> letters = new HashMap<>();

  ReleasedLetters(KeyChains chains, LadderPublisher publisher, ChainWrites writes) {
    this.chains = chains;
    this.publisher = publisher;
    this.writes = writes;
  }

  /** The released record first in {@code c}'s line was refused; its letter is {@code letter}. */
  void refused(KeyChain c, long offset, Future<RecordMetadata> letter) {
    chains.letterInFlight(c, offset);
    chains.released(c);
    letters.put(c, letter);
  }

  /**
   * A forward that was neither delivered nor parked, if it was a released record's: back first in
   * line.
   *
   * @return whether it was one
   */
  boolean undelivered(Undelivered u) {
    ConsumerRecord<byte[], byte[]> r = u.record();
    if (r == null || r.key() == null) {
      return false;
    }
    Optional<KeyChain> found = chains.chain(u.source(), r.key());
    if (found.isEmpty()) {
      return false;
    }
    KeyChain c = found.get();
    boolean releasedHead = c.head == r.offset() && c.releasedHead;
    if (!releasedHead && c.letterInFlight != r.offset()) {
      return false;
    }
    letters.remove(c);
    chains.unrelease(c, r);
    writes.changed(c, null);
    LOG.warn("{}; it goes back first in line behind {}", u.describe(), c.key);
    return true;
  }

  /** At the loop's turn: the keys whose released record's dead letter Kafka took go on. */
  void delivered() {
    letters
        .entrySet()
        .removeIf(
            e -> {
              if (!publisher.settled(e.getValue())) {
                return false;
              }
              KeyChain c = e.getKey();
              chains.letterDelivered(c);
              if (chains.gone(c)) {
                writes.changed(c, null);
              }
              return true;
            });
  }

  void forget(Collection<TopicPartition> partitions) {
    letters.keySet().removeIf(c -> partitions.contains(c.tp));
  }
}
