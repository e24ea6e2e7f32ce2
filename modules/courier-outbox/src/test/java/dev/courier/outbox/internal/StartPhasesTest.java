package dev.courier.outbox.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class StartPhasesTest {

  private final AtomicLong nanos = new AtomicLong(1_000);

  private void advanceMillis(long ms) {
    nanos.addAndGet(Duration.ofMillis(ms).toNanos());
  }

  @Test
  void eachPhaseTakesTheTimeSinceTheMarkBeforeAndTheFinishGivesTheWhole() {
    StartPhases start = StartPhases.begin(nanos::get);
    advanceMillis(400);
    start.mark("checks");
    advanceMillis(1_250);
    start.mark("stored position");
    advanceMillis(700);

    assertThat(start.finish("first batch")).contains(Duration.ofMillis(2_350));
    assertThat(start.phases())
        .extracting(StartPhases.Phase::name, p -> p.took().toMillis())
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple("checks", 400L),
            org.assertj.core.groups.Tuple.tuple("stored position", 1_250L),
            org.assertj.core.groups.Tuple.tuple("first batch", 700L));
    assertThat(start.describe())
        .isEqualTo(
            "2,350 ms after the start (checks 400 ms, stored position 1,250 ms, first batch 700"
                + " ms)");
  }

  @Test
  void onlyTheFirstFinishCountsAndLaterMarksChangeNothing() {
    StartPhases start = StartPhases.begin(nanos::get);
    advanceMillis(10);
    assertThat(start.finish("first batch")).contains(Duration.ofMillis(10));
    advanceMillis(5_000);
    start.mark("engine");

    assertThat(start.finish("first batch")).isEmpty();
    assertThat(start.phases()).hasSize(1);
    assertThat(start.describe()).isEqualTo("10 ms after the start (first batch 10 ms)");
  }
}
