package dev.courier.retry;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * The names of one consumer group's ladder on a main topic: {@code <topic>.<group>.retry.1} ...
 * {@code <topic>.<group>.retry.N} and {@code <topic>.<group>.dlt}. Each group that reads a topic
 * has a ladder of its own, so a record one group retries or dead-letters never reaches another
 * group's handler. A {@link RetryingConsumer} creates them at start with the main topic's partition
 * count (a retried record keeps its partition, so records of one key stay together).
 *
 * <p>Until each group had a ladder of its own, one ladder served every group on a topic ({@code
 * <topic>.retry.N}, {@code <topic>.dlt}, {@code <topic>.retry.blocked}): the <em>shared</em>
 * ladder. A group's ladder still reads the shared one's tiers and blocked keys while they exist,
 * handling only its own records there ({@code courier.consumer.group}), so an upgrade strands
 * nothing (docs/retry/ladder.md, "Upgrading from the shared ladder").
 */
public record RetryTopics(String main, String group, int tiers) {

  /** What a group id must be to name topics: Kafka's topic characters. */
  private static final Pattern TOPIC_CHARACTERS = Pattern.compile("[a-zA-Z0-9._-]+");

  /** Kafka's longest topic name. */
  private static final int MAX_TOPIC_NAME = 249;

  /**
   * Why this group and topic cannot name a ladder (a character Kafka does not allow in a topic
   * name, a name too long), or null when they can.
   */
  public String unusable() {
    if (!TOPIC_CHARACTERS.matcher(group).matches()) {
      return "a consumer group that names its ladder's topics must use only letters, digits, '.',"
          + " '_' and '-', as a Kafka topic name does";
    }
    if (blocked().length() > MAX_TOPIC_NAME) {
      return blocked() + " would be longer than Kafka's " + MAX_TOPIC_NAME + " characters";
    }
    return null;
  }

  public String tier(int tier) {
    if (tier < 1 || tier > tiers) {
      throw new IllegalArgumentException("tier must be in [1, " + tiers + "], got " + tier);
    }
    return ownPrefix() + tier;
  }

  public String deadLetter() {
    return main + "." + group + ".dlt";
  }

  /**
   * The compacted topic of the keys blocked by {@code retry.ordering=key}: partition {@code p}
   * holds the keys of the main topic's partition {@code p} and what waits behind them.
   */
  public String blocked() {
    return ownPrefix() + "blocked";
  }

  /** Tier {@code tier} of the shared ladder, which every group on the topic read. */
  public String sharedTier(int tier) {
    return sharedPrefix() + tier;
  }

  /** The DLT of the shared ladder. */
  public String sharedDeadLetter() {
    return main + ".dlt";
  }

  /** The topic of blocked keys of the shared ladder. */
  public String sharedBlocked() {
    return sharedPrefix() + "blocked";
  }

  /** Whether a topic is a tier of the shared ladder. */
  public boolean shared(String topic) {
    return tierNumber(topic, sharedPrefix()) > 0;
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

  /**
   * The tier a topic is (0 for the main topic), or -1 when it is not on this ladder. A shared tier
   * of the shared ladder is the tier of its number: its records go on to this group's next tier.
   */
  public int tierOf(String topic) {
    if (topic.equals(main)) {
      return 0;
    }
    int own = tierNumber(topic, ownPrefix());
    return own > 0 ? own : tierNumber(topic, sharedPrefix());
  }

  private String ownPrefix() {
    return main + "." + group + ".retry.";
  }

  private String sharedPrefix() {
    return main + ".retry.";
  }

  private static int tierNumber(String topic, String prefix) {
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
