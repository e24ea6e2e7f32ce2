package dev.courier.retry.internal;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import org.apache.kafka.common.TopicPartition;

/** Key order's state records as the tests of its store write and read them. */
final class ChainStates {

  private ChainStates() {}

  /** A blocked key's state: {@code head} in the ladder, {@code waiting} behind it. */
  static byte[] chain(TopicPartition main, String key, long head, long... waiting) {
    KeyChain c =
        new KeyChain(main, new ChainKey(bytes(key)), head, head, Instant.ofEpochMilli(1_000));
    for (long w : waiting) {
      c.waiting.add(new KeyChain.Waiting(w, null));
      c.seen = w;
    }
    return ChainRecords.value(c);
  }

  /** The keys of the chains read back, sorted. */
  static List<String> keys(List<KeyChain> chains) {
    return chains.stream()
        .map(c -> new String(c.key().bytes(), StandardCharsets.UTF_8))
        .sorted()
        .toList();
  }

  static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
