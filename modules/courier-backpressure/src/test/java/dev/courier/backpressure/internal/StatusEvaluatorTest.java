package dev.courier.backpressure.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.courier.backpressure.GroupLag;
import dev.courier.backpressure.OffsetSample;
import dev.courier.backpressure.PartitionLag;
import dev.courier.backpressure.Rates;
import dev.courier.backpressure.Status;
import dev.courier.backpressure.Verdict;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class StatusEvaluatorTest {

  private static final Instant T0 = Instant.parse("2026-11-29T12:00:00Z");
  private final StatusEvaluator evaluator = new StatusEvaluator(Duration.ofSeconds(60));

  /** Samples every 10 s: committed offsets and lags (log end = committed + lag). */
  private static List<OffsetSample> samples(long[] committed, long[] lags) {
    List<OffsetSample> list = new ArrayList<>();
    for (int i = 0; i < committed.length; i++) {
      list.add(
          new OffsetSample(T0.plusSeconds(10L * i), committed[i], committed[i] + lags[i], lags[i]));
    }
    return list;
  }

  private static Instant at(int i) {
    return T0.plusSeconds(10L * i);
  }

  @Test
  void caughtUpIsOk() {
    var s = samples(new long[] {10, 20, 30}, new long[] {5, 3, 0});
    assertThat(evaluator.evaluate(s, at(2), true, at(2)).status()).isEqualTo(Status.OK);
  }

  @Test
  void advancingButGrowingLagWarns() {
    var s = samples(new long[] {100, 200, 300, 400}, new long[] {20, 40, 60, 80});
    Verdict v = evaluator.evaluate(s, at(3), true, at(3));
    assertThat(v.status()).isEqualTo(Status.WARN);
    assertThat(v.reason()).contains("lag grew from 20 to 80");
  }

  @Test
  void shrinkingLagIsOk() {
    var s = samples(new long[] {100, 200, 300}, new long[] {80, 40, 10});
    assertThat(evaluator.evaluate(s, at(2), true, at(2)).status()).isEqualTo(Status.OK);
  }

  @Test
  void ownedPartitionThatDoesNotMoveForTheWindowStalls() {
    var s =
        samples(new long[] {50, 50, 50, 50, 50, 50, 50, 50}, new long[] {5, 5, 6, 7, 8, 9, 9, 9});
    Verdict v = evaluator.evaluate(s, at(0), true, at(7));
    assertThat(v.status()).isEqualTo(Status.STALL);
    assertThat(v.reason()).contains("has not moved for 70.0 s");
  }

  @Test
  void unownedPartitionWithoutCommitsForLongerThanTheWindowStops() {
    var s =
        samples(new long[] {50, 50, 50, 50, 50, 50, 50, 50}, new long[] {5, 5, 6, 7, 8, 9, 9, 9});
    Verdict v = evaluator.evaluate(s, at(0), false, at(7));
    assertThat(v.status()).isEqualTo(Status.STOP);
    assertThat(v.reason()).contains("no commit for 70.0 s").contains("no member consuming");
  }

  @Test
  void offsetsMovingBackwardsRewind() {
    var s = samples(new long[] {500, 600, 0}, new long[] {0, 0, 600});
    Verdict v = evaluator.evaluate(s, at(2), true, at(2));
    assertThat(v.status()).isEqualTo(Status.REWIND);
    assertThat(v.reason()).isEqualTo("committed offset moved back from 600 to 0");
  }

  @Test
  void oneSampleIsNotEnoughToWarn() {
    var s = samples(new long[] {5}, new long[] {100});
    assertThat(evaluator.evaluate(s, at(0), true, at(0)))
        .isEqualTo(new Verdict(Status.OK, "not enough samples yet"));
  }

  @Test
  void groupRollsStallAndStopUpToErr() {
    var ok = partition(Status.OK);
    var stop = partition(Status.STOP);
    GroupLag g = GroupLag.of("billing", "Empty", 0, List.of(ok, stop), java.time.Instant.EPOCH);
    assertThat(g.verdict().status()).isEqualTo(Status.ERR);
    assertThat(g.verdict().reason()).startsWith("orders-1 STOP");
    assertThat(
            GroupLag.of("billing", "Stable", 1, List.of(ok), java.time.Instant.EPOCH)
                .verdict()
                .status())
        .isEqualTo(Status.OK);
  }

  private static PartitionLag partition(Status status) {
    int p = status == Status.OK ? 0 : 1;
    return new PartitionLag(
        "billing",
        "orders",
        p,
        1,
        2,
        1,
        Duration.ZERO,
        false,
        "-",
        "-",
        "-",
        Rates.NONE,
        new Verdict(status, "because"));
  }
}
