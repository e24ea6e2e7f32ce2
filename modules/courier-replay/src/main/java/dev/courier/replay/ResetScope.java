package dev.courier.replay;

import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * Which partitions a reset touches, as Kafka's tool scopes it: {@code --all-topics} (every
 * partition the group has committed), {@code --topic orders} (every partition of the topic) or
 * {@code --topic orders:0,2}.
 */
public record ResetScope(Optional<String> topic, Set<Integer> partitions) {

  public ResetScope {
    Objects.requireNonNull(topic, "topic");
    partitions = Set.copyOf(partitions);
    if (topic.isEmpty() && !partitions.isEmpty()) {
      throw new IllegalArgumentException("partitions need a topic");
    }
    partitions.forEach(
        p -> {
          if (p < 0) {
            throw new IllegalArgumentException("partition must be >= 0, got " + p);
          }
        });
  }

  public static ResetScope allTopics() {
    return new ResetScope(Optional.empty(), Set.of());
  }

  public static ResetScope topic(String topic) {
    return new ResetScope(Optional.of(topic), Set.of());
  }

  public static ResetScope partitions(String topic, Integer... partitions) {
    return new ResetScope(Optional.of(topic), Set.of(partitions));
  }

  /** Parses {@code orders} or {@code orders:0,2} (Kafka's {@code --topic} syntax). */
  public static ResetScope parse(String spec) {
    int colon = spec.indexOf(':');
    if (colon < 0) {
      return topic(spec);
    }
    Set<Integer> parts = new TreeSet<>();
    for (String p : spec.substring(colon + 1).split(",")) {
      try {
        parts.add(Integer.parseInt(p.trim()));
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException("not a partition number in '" + spec + "': " + p, e);
      }
    }
    return new ResetScope(Optional.of(spec.substring(0, colon)), parts);
  }

  @Override
  public String toString() {
    if (topic.isEmpty()) {
      return "--all-topics";
    }
    return "--topic "
        + topic.get()
        + (partitions.isEmpty()
            ? ""
            : ":"
                + String.join(
                    ",", new TreeSet<>(partitions).stream().map(String::valueOf).toList()));
  }
}
