package dev.courier.benchmarks;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * What a fault run committed, where each event ended up (delivered, or parked in a dead-letter
 * topic) and in what order, with each event charged to the fault under way when it was committed:
 * lost events and per-key order violations are reported per fault kind.
 */
final class DeliveryLedger {

  /** The kind of the events committed before the first fault. */
  static final String NO_FAULT = "no fault";

  private final Map<String, Long> committedAt = new ConcurrentHashMap<>();
  private final Map<String, String> committedUnder = new ConcurrentHashMap<>();
  private final Map<String, List<Long>> deliveredSeq = new ConcurrentHashMap<>();
  private final Set<String> parked = ConcurrentHashMap.newKeySet();
  private final AtomicLong delivered = new AtomicLong();
  private volatile String fault = NO_FAULT;

  /** Events committed after this instant count as new for a recovery measurement. */
  private volatile long watchFrom = Long.MAX_VALUE;

  /** When the first new event arrived, or 0. */
  private final AtomicLong firstNew = new AtomicLong();

  /** Events committed from now on are charged to this kind of fault. */
  void faultUnderWay(String kind) {
    fault = kind;
  }

  void committed(String key, long seq) {
    String id = key + ":" + seq;
    committedUnder.put(id, fault);
    committedAt.put(id, System.nanoTime());
  }

  void delivered(String key, long seq) {
    deliveredSeq
        .computeIfAbsent(key, k -> Collections.synchronizedList(new ArrayList<>()))
        .add(seq);
    delivered.incrementAndGet();
    Long committed = committedAt.get(key + ":" + seq);
    if (committed != null && committed > watchFrom) {
      firstNew.compareAndSet(0, System.nanoTime());
    }
  }

  /** The event went to a dead-letter topic, as the policy says: accounted for, not lost. */
  void parked(String key, long seq) {
    parked.add(key + ":" + seq);
  }

  int committed() {
    return committedAt.size();
  }

  int parked() {
    return parked.size();
  }

  boolean allAccountedFor() {
    return lostIds().isEmpty();
  }

  /** Seconds until the first event committed from now on is delivered; NaN after 2 minutes. */
  double untilNextDelivery() {
    long from = System.nanoTime();
    firstNew.set(0);
    watchFrom = from;
    long deadline = from + java.time.Duration.ofMinutes(2).toNanos();
    while (firstNew.get() == 0 && System.nanoTime() < deadline) {
      LockSupport.parkNanos(java.time.Duration.ofMillis(20).toNanos()); // polling for a delivery
    }
    watchFrom = Long.MAX_VALUE;
    return firstNew.get() == 0 ? Double.NaN : (firstNew.get() - from) / 1e9;
  }

  private List<String> lostIds() {
    List<String> lost = new ArrayList<>();
    for (String id : committedAt.keySet()) {
      String[] parts = id.split(":");
      List<Long> got = deliveredSeq.getOrDefault(parts[0], List.of());
      if (!parked.contains(id) && !got.contains(Long.parseLong(parts[1]))) {
        lost.add(id);
      }
    }
    return lost;
  }

  /** The totals, and lost events and order violations by the fault they were committed under. */
  Result result() {
    Map<String, long[]> byKind = new TreeMap<>(); // {committed, lost, violations}
    committedUnder.values().forEach(k -> byKind.computeIfAbsent(k, x -> new long[3])[0]++);
    List<String> lost = lostIds();
    lost.forEach(id -> byKind.computeIfAbsent(committedUnder.get(id), x -> new long[3])[1]++);
    Set<String> seen = new HashSet<>();
    long violations = 0;
    long distinct = 0;
    for (var e : deliveredSeq.entrySet()) {
      long highest = -1;
      List<Long> arrived;
      synchronized (e.getValue()) {
        arrived = new ArrayList<>(e.getValue());
      }
      for (long seq : arrived) {
        String id = e.getKey() + ":" + seq;
        if (seen.add(id)) {
          distinct++;
          if (seq < highest) {
            violations++;
            byKind
                .computeIfAbsent(committedUnder.getOrDefault(id, NO_FAULT), x -> new long[3])[2]++;
          }
          highest = Math.max(highest, seq);
        }
      }
    }
    List<String> perKind = new ArrayList<>();
    byKind.forEach(
        (kind, n) ->
            perKind.add(
                String.format(
                    Locale.ROOT,
                    "%s: committed %d, lost %d, order violations %d",
                    kind,
                    n[0],
                    n[1],
                    n[2])));
    return new Result(
        committedAt.size(), delivered.get(), distinct, lost.size(), violations, perKind);
  }

  /** Seconds as {@code n=3 median 1.2 s max 2.0 s}. */
  static String summary(List<Double> seconds) {
    List<Double> sorted = new ArrayList<>(seconds);
    Collections.sort(sorted);
    return String.format(
        Locale.ROOT,
        "n=%d median %.1f s max %.1f s",
        sorted.size(),
        sorted.get(sorted.size() / 2),
        sorted.get(sorted.size() - 1));
  }

  record Result(
      long committed,
      long delivered,
      long distinct,
      long lost,
      long violations,
      List<String> perKind) {}
}
