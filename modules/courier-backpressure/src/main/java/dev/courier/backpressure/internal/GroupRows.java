package dev.courier.backpressure.internal;

import dev.courier.backpressure.PartitionLag;
import dev.courier.backpressure.Rates;
import dev.courier.backpressure.internal.ClusterOffsets.Owner;
import java.time.Duration;
import java.util.AbstractList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.RandomAccess;
import org.apache.kafka.common.TopicPartition;

/**
 * One group's partitions at one tick as columns, read as a list of {@link PartitionLag}: a row
 * becomes an object only when it is read (by an HTTP response, a scrape, a caller). A million
 * partition-group pairs as records cost about 150 MB a snapshot, as columns about 60 MB. Filled by
 * the monitor once, immutable after {@link #rollUp()}.
 */
public final class GroupRows extends AbstractList<PartitionLag> implements RandomAccess {

  private final String group;
  private final TickPartitions partitions;
  private final Owner[] owners;
  private final boolean estimated;
  private final long windowMillis;
  private final int size;
  private final int[] ids;
  private final long[] committed;
  private final long[] lag;
  private final long[] ageMillis;
  private final int[] owner;
  private final float[] commitRate;
  private final float[] growth;
  private final int[] spanMillis;
  private final byte[] finding;
  private final long[] a;
  private final long[] b;
  private final Map<Integer, String> unknown = new HashMap<>();

  /** Rows whose exact age could not be read in time: an older record's stands in, labelled so. */
  private final BitSet ageEstimated = new BitSet();

  public GroupRows(
      String group,
      TickPartitions partitions,
      Owner[] owners,
      boolean estimated,
      long windowMillis,
      int size) {
    this.group = group;
    this.partitions = partitions;
    this.owners = owners;
    this.estimated = estimated;
    this.windowMillis = windowMillis;
    this.size = size;
    ids = new int[size];
    committed = new long[size];
    lag = new long[size];
    ageMillis = new long[size];
    owner = new int[size];
    commitRate = new float[size];
    growth = new float[size];
    spanMillis = new int[size];
    finding = new byte[size];
    a = new long[size];
    b = new long[size];
  }

  /** A row without figures, with the reason. */
  public void unknown(int row, int id, long committedOffset, String reason) {
    ids[row] = id;
    committed[row] = committedOffset;
    owner[row] = -1;
    finding[row] = (byte) Finding.UNKNOWN.ordinal();
    unknown.put(row, reason);
  }

  /** The row's age is an older record's: the one it waits at was not read in time. */
  public void ageEstimated(int row) {
    ageEstimated.set(row);
  }

  /** A row with figures; rates are per second over {@code span} millis (0: no rates yet). */
  public void known(
      int row,
      int id,
      long committedOffset,
      long lagRecords,
      long age,
      int ownerIndex,
      double commitPerSecond,
      double growthPerSecond,
      long span,
      Finding f,
      long argA,
      long argB) {
    ids[row] = id;
    committed[row] = committedOffset;
    lag[row] = lagRecords;
    ageMillis[row] = age;
    owner[row] = ownerIndex;
    commitRate[row] = (float) commitPerSecond;
    growth[row] = (float) growthPerSecond;
    spanMillis[row] = (int) Math.min(Integer.MAX_VALUE, span);
    finding[row] = (byte) f.ordinal();
    a[row] = argA;
    b[row] = argB;
  }

  /** The group's figures over all rows. */
  public RollUp rollUp() {
    RollUp r = new RollUp();
    for (int i = 0; i < size; i++) {
      r.add(
          i,
          lag[i],
          ageMillis[i] * 1_000_000L,
          growth[i],
          commitRate[i],
          drainMillis(i),
          Finding.of(finding[i]).status());
    }
    return r;
  }

  private long drainMillis(int i) {
    if (spanMillis[i] == 0) {
      return -1;
    }
    if (lag[i] == 0) {
      return 0;
    }
    return growth[i] < 0 ? (long) (lag[i] / -growth[i] * 1000) : -1;
  }

  @Override
  public int size() {
    return size;
  }

  @Override
  public PartitionLag get(int i) {
    if (i < 0 || i >= size) {
      throw new IndexOutOfBoundsException(i);
    }
    TopicPartition tp = partitions.partitions()[ids[i]];
    Finding f = Finding.of(finding[i]);
    if (f == Finding.UNKNOWN) {
      return PartitionLag.unknown(group, tp.topic(), tp.partition(), committed[i], unknown.get(i));
    }
    Owner o = owner[i] < 0 ? Owner.NONE : owners[owner[i]];
    long drain = drainMillis(i);
    Rates rates =
        spanMillis[i] == 0
            ? Rates.NONE
            : new Rates(
                partitions.produceRates()[ids[i]],
                commitRate[i],
                growth[i],
                drain < 0 ? Optional.empty() : Optional.of(Duration.ofMillis(drain)),
                Duration.ofMillis(spanMillis[i]));
    return new PartitionLag(
        group,
        tp.topic(),
        tp.partition(),
        committed[i],
        partitions.ends()[ids[i]],
        lag[i],
        Duration.ofMillis(ageMillis[i]),
        estimated || ageEstimated.get(i),
        o.consumerId(),
        o.host(),
        o.clientId(),
        rates,
        f.verdict(lag[i], committed[i], a[i], b[i], windowMillis));
  }
}
