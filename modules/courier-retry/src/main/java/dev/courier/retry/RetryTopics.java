package dev.courier.retry;

import java.util.ArrayList;
import java.util.List;

/**
 * The names of a main topic's ladder: {@code <topic>.retry.1} ... {@code <topic>.retry.N} and
 * {@code <topic>.dlt}. A {@link RetryingConsumer} creates them at start with the main topic's
 * partition count (a retried record keeps its partition, so records of one key stay together).
 */
public record RetryTopics(String main, int tiers) {

  public String tier(int tier) {
    if (tier < 1 || tier > tiers) {
      throw new IllegalArgumentException("tier must be in [1, " + tiers + "], got " + tier);
    }
    return main + ".retry." + tier;
  }

  public String deadLetter() {
    return main + ".dlt";
  }

  /**
   * The compacted topic of the keys blocked by {@code retry.ordering=key}: partition {@code p}
   * holds the keys of the main topic's partition {@code p} and what waits behind them.
   */
  public String blocked() {
    return main + ".retry.blocked";
  }

  public List<String> all() {
    List<String> all = new ArrayList<>();
    all.add(main);
    for (int t = 1; t <= tiers; t++) {
      all.add(tier(t));
    }
    all.add(deadLetter());
    return all;
  }

  /** The tier a topic is (0 for the main topic), or -1 when it is not on this ladder. */
  public int tierOf(String topic) {
    if (topic.equals(main)) {
      return 0;
    }
    String prefix = main + ".retry.";
    if (topic.startsWith(prefix)) {
      String n = topic.substring(prefix.length());
      if (!n.isEmpty() && n.length() < 4 && n.chars().allMatch(c -> c >= '0' && c <= '9')) {
        int tier = Integer.parseInt(n);
        return tier > 0 ? tier : -1;
      }
    }
    return -1;
  }
}
