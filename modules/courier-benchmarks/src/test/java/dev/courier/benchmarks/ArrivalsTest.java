package dev.courier.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class ArrivalsTest {

  @Test
  void aPrintedSecondReadBackKeepsItsFirstAndLastArrival() {
    Arrivals seen = new Arrivals();
    seen.record(1_000_900, 3, 40);
    seen.record(1_000_100, 5, 70);
    seen.record(1_001_250, 2, 10);

    List<String> lines = seen.takeLines(1_002);
    Arrivals read = Arrivals.parse(String.join("\n", lines));

    assertThat(lines)
        .containsExactly(
            "arrivals 1000 8 70 1000900 1000100", "arrivals 1001 2 10 1001250 1001250");
    assertThat(read.count()).isEqualTo(10);
    // A drain timed from its first event, not from the end of that event's second.
    assertThat(read.firstReceived()).isEqualTo(1_000_100);
    assertThat(read.lastReceived()).isEqualTo(1_001_250);
    assertThat(read.window(1_000_000, 1_001_000)).isEqualTo(new Arrivals.Window(8, 70, 70));
  }
}
