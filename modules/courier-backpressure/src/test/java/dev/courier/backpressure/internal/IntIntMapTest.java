package dev.courier.backpressure.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

class IntIntMapTest {

  @Test
  void agreesWithAHashMapOverRandomPutsAndRemoves() {
    Random random = new Random(7);
    IntIntMap map = new IntIntMap();
    Map<Integer, Integer> expected = new HashMap<>();
    for (int i = 0; i < 200_000; i++) {
      int key = random.nextInt(5_000);
      if (random.nextInt(3) == 0) {
        map.remove(key);
        expected.remove(key);
      } else {
        map.put(key, i);
        expected.put(key, i);
      }
      if (i % 1000 == 0) {
        for (int k = 0; k < 5_000; k++) {
          assertThat(map.get(k)).isEqualTo(expected.getOrDefault(k, IntIntMap.ABSENT));
        }
      }
    }
    assertThat(map.size()).isEqualTo(expected.size());
  }
}
