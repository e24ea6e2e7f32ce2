package dev.courier.retry.internal;

import dev.courier.core.CourierHeaders;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;

/**
 * How a blocked key is kept in {@code <topic>.<group>.retry.blocked}: keyed by the main topic's
 * partition and the record key, the value the chain's head, the highest offset it held, when it was
 * blocked and the offsets waiting; once the key is free, a done mark (the highest offset its chain
 * held) until the partition is committed past it, then a tombstone. Compaction keeps the last of
 * each.
 */
public final class ChainRecords {

  private static final byte VERSION = 1;

  /**
   * A done mark's version: a relay of version 1 reads it as unreadable and holds nothing, as it
   * would after the tombstone it wrote in its place.
   */
  private static final byte DONE = 2;

  /**
   * The record key of an owner's mark, written when it is given the partition ({@link
   * ChainStore#restore}); a record key Kafka clients cannot produce from text keys by accident.
   */
  private static final byte[] GENERATION_MARK =
      "\u0000courier.ordering.generation".getBytes(StandardCharsets.UTF_8);

  private ChainRecords() {}

  /** The key of the partition's mark of the generation its owner was given it in. */
  public static byte[] generationMark(int partition) {
    return key(partition, GENERATION_MARK);
  }

  static boolean isGenerationMark(byte[] recordKey) {
    return Arrays.equals(recordKey, GENERATION_MARK);
  }

  /** Stamps a write with its writer's generation ({@link CourierHeaders#ORDERING_GENERATION}). */
  public static void stamp(Headers headers, int generation) {
    if (generation >= 0) {
      headers.add(
          CourierHeaders.ORDERING_GENERATION,
          Integer.toString(generation).getBytes(StandardCharsets.UTF_8));
    }
  }

  /** The writer's generation, or -1 for a record without one (written before the stamp existed). */
  public static int generationOf(ConsumerRecord<byte[], byte[]> r) {
    Header h = r.headers().lastHeader(CourierHeaders.ORDERING_GENERATION);
    if (h == null || h.value() == null) {
      return -1;
    }
    try {
      return Integer.parseInt(new String(h.value(), StandardCharsets.UTF_8));
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  /**
   * The state record's key: the main-topic partition (4 bytes, big-endian), then the record key.
   */
  public static byte[] key(int partition, byte[] recordKey) {
    return ByteBuffer.allocate(4 + recordKey.length).putInt(partition).put(recordKey).array();
  }

  public static int partitionOf(byte[] stateKey) {
    return ByteBuffer.wrap(stateKey).getInt();
  }

  public static byte[] recordKeyOf(byte[] stateKey) {
    return Arrays.copyOfRange(stateKey, 4, stateKey.length);
  }

  /**
   * The chain's value: version, head (-1 while draining), highest offset, since, waiting offsets.
   */
  public static byte[] value(KeyChain c) {
    List<KeyChain.Waiting> waiting = c.waiting();
    ByteBuffer b = ByteBuffer.allocate(1 + 8 + 8 + 8 + 4 + 8 * waiting.size());
    b.put(VERSION).putLong(c.head).putLong(c.seen).putLong(c.since.toEpochMilli());
    b.putInt(waiting.size());
    waiting.forEach(w -> b.putLong(w.offset()));
    return b.array();
  }

  /** A done mark's value: the key is free; its records up to {@code upTo} were dealt with. */
  public static byte[] done(long upTo) {
    return ByteBuffer.allocate(1 + 8).put(DONE).putLong(upTo).array();
  }

  /**
   * The chain a state record describes (a done mark as a chain draining with nothing waiting).
   *
   * @throws IllegalArgumentException the value is not one this version wrote
   */
  public static KeyChain chain(TopicPartition mainTp, byte[] stateKey, byte[] value) {
    ByteBuffer b = ByteBuffer.wrap(value);
    if (value.length == 9 && value[0] == DONE) {
      b.get();
      long upTo = b.getLong();
      return KeyChains.restored(mainTp, recordKeyOf(stateKey), -1, upTo, Instant.EPOCH, List.of());
    }
    if (value.length < 29 || b.get() != VERSION) {
      throw new IllegalArgumentException("not a blocked-key record of version " + VERSION);
    }
    long head = b.getLong();
    long seen = b.getLong();
    Instant since = Instant.ofEpochMilli(b.getLong());
    int n = b.getInt();
    if (n < 0 || b.remaining() != 8L * n) {
      throw new IllegalArgumentException("waiting count " + n + " does not match the value");
    }
    List<Long> waiting = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      waiting.add(b.getLong());
    }
    return KeyChains.restored(mainTp, recordKeyOf(stateKey), head, seen, since, waiting);
  }
}
