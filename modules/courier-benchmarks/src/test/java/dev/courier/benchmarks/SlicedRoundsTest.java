package dev.courier.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.courier.benchmarks.SlicedRounds.Work;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SlicedRoundsTest {

  @Test
  void slicesOfTheVariantsInterleaveWithinARoundAndRotate() throws Exception {
    List<String> ran = new ArrayList<>();
    new SlicedRounds(0, 2, 2)
        .beforeRound(() -> ran.add("|"))
        .variant("a", logging(ran, "a"))
        .variant("b", logging(ran, "b"))
        .run();

    assertThat(ran)
        .containsExactly(
            "|", "a>", "b>", "a0", "b0", "b1", "a1", "a.", "b.", // round 0
            "|", "b>", "a>", "b0", "a0", "a1", "b1", "a.", "b."); // round 1
  }

  @Test
  void aRunsRateIsItsSlicesItemsOverTheirSecondsAndWarmUpsAreNotCounted() throws Exception {
    double[] seconds = {1, 3};
    List<Work> ends = new ArrayList<>();
    Map<String, Measurement> m =
        new SlicedRounds(1, 2, 2)
            .variant(
                "a",
                new SlicedRounds.Variant() {
                  @Override
                  public Work slice(int index, int slices) {
                    return new Work(100, seconds[index]);
                  }

                  @Override
                  public void end(boolean warmUp, Work total) {
                    ends.add(total);
                  }
                })
            .run();

    assertThat(m.get("a").values()).containsExactly(50.0, 50.0);
    assertThat(ends).hasSize(3).allMatch(w -> w.count() == 200 && w.seconds() == 4);
  }

  @Test
  void slicesShareOutARunsItemsToTheLast() {
    assertThat(SlicedRounds.target(300_000, 0, 6)).isEqualTo(50_000);
    assertThat(SlicedRounds.target(20_000, 2, 6)).isEqualTo(10_000);
    assertThat(SlicedRounds.target(20_001, 5, 6)).isEqualTo(20_001);
  }

  @Test
  void aSliceWithNothingLeftToDoAddsNothing() {
    assertThat(new Work(10, 2).plus(Work.NONE)).isEqualTo(new Work(10, 2));
    assertThatThrownBy(() -> Work.NONE.rate()).isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> new Work(5, 0)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new SlicedRounds(0, 1, 0))
        .isInstanceOf(IllegalArgumentException.class);
  }

  private static SlicedRounds.Variant logging(List<String> ran, String name) {
    return new SlicedRounds.Variant() {
      @Override
      public void start() {
        ran.add(name + ">");
      }

      @Override
      public Work slice(int index, int slices) {
        ran.add(name + index);
        return new Work(1, 1);
      }

      @Override
      public void end(boolean warmUp, Work total) {
        ran.add(name + ".");
      }
    };
  }
}
