package dev.courier.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RoundsTest {

  @Test
  void variantsAlternateRoundByRoundAndWarmUpsAreNotCounted() throws Exception {
    List<String> ran = new ArrayList<>();
    double[] next = {0};
    Rounds.Run counting =
        warmUp -> {
          next[0]++;
          return warmUp ? -1 : next[0];
        };
    Map<String, Measurement> m =
        new Rounds(1, 3)
            .variant("a", w -> log(ran, "a", w, counting))
            .variant("b", w -> log(ran, "b", w, counting))
            .variant("c", w -> log(ran, "c", w, counting))
            .run();

    assertThat(ran)
        .containsExactly(
            "a*", "b*", "c*", // warm-up round
            "b", "c", "a", //
            "c", "a", "b", //
            "a", "b", "c");
    assertThat(m.keySet()).containsExactly("a", "b", "c");
    assertThat(m.get("a").values()).as("no warm-up value").doesNotContain(-1.0).hasSize(3);
  }

  @Test
  void aSingleRoundIsASmokeRunWithoutWarmUp() throws Exception {
    List<String> ran = new ArrayList<>();
    Rounds.of(1).variant("a", w -> log(ran, "a", w, x -> 1)).run();
    assertThat(ran).containsExactly("a");
  }

  @Test
  void ratiosPairRoundByRoundAgainstTheSmallerBaseline() {
    Measurement courier = new Measurement("courier", List.of(90.0, 60.0, 100.0));
    Measurement inserts = new Measurement("inserts", List.of(100.0, 100.0, 200.0));
    Measurement consume = new Measurement("consume", List.of(300.0, 50.0, 400.0));

    Measurement ratio = courier.over("courier / smaller", List.of(inserts, consume));

    assertThat(ratio.values()).containsExactly(0.9, 1.2, 0.5);
    assertThat(ratio.median()).isEqualTo(0.9);
    assertThat(ratio.min()).isEqualTo(0.5);
    assertThatThrownBy(() -> courier.over("x", new Measurement("short", List.of(1.0))))
        .hasMessageContaining("3 runs");
  }

  @Test
  void aTargetIsMetOnlyWhenTheWholeSpreadClearsIt() {
    Measurement spread = new Measurement("ratio", List.of(0.88, 0.95, 1.02));
    assertThat(Target.atLeast(0.9).metBy(spread)).isFalse();
    assertThat(Target.atLeast(0.85).metBy(spread)).isTrue();
    assertThat(Target.atMost(1.0).metBy(spread)).isFalse();
    assertThat(Target.atMost(1.05).metBy(spread)).isTrue();
    assertThat(Check.reported(spread, "x").metText()).isEqualTo("-");
    assertThat(new Check(spread, "x", Target.atLeast(0.9)).metText()).isEqualTo("no");
  }

  @Test
  void percentilesInterpolateBetweenRanks() {
    Measurement m = new Measurement("m", List.of(4.0, 1.0, 3.0, 2.0));
    assertThat(m.median()).isEqualTo(2.5);
    assertThat(m.percentile(0.25)).isEqualTo(1.75);
    assertThat(m.spread(1)).isEqualTo("1.0-4.0 (IQR 1.8-3.3)");
  }

  private static double log(List<String> ran, String name, boolean warmUp, Rounds.Run run)
      throws Exception {
    ran.add(warmUp ? name + "*" : name);
    return run.measure(warmUp);
  }
}
