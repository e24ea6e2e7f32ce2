package dev.courier.retry;

import java.util.Objects;

/**
 * Where a replay sends dead letters. By default to the group that dead-lettered each one: the first
 * tier of its own ladder ({@code <topic>.<group>.retry.1}), due at once and with its attempts
 * afresh, so no other group reading the topic receives it again. Back onto the original topic only
 * when asked: every group reading it then receives the record again.
 */
public sealed interface ReplayTarget {

  /** For the plan and the audit log. */
  String describe();

  /** To the first tier of the group named in each letter ({@code courier.consumer.group}). */
  static ReplayTarget failingGroup() {
    return new FailingGroup();
  }

  /** To each letter's original topic and partition: every group reading it receives it again. */
  static ReplayTarget originalTopics() {
    return new OriginalTopics();
  }

  /** To this topic (a tier of the letter's own ladder gets the ladder's headers). */
  static ReplayTarget topic(String topic) {
    return new Topic(topic);
  }

  /** {@link #failingGroup()}. */
  record FailingGroup() implements ReplayTarget {
    public String describe() {
      return "the first tier of the group that dead-lettered each";
    }
  }

  /** {@link #originalTopics()}. */
  record OriginalTopics() implements ReplayTarget {
    public String describe() {
      return "their original topics (every group reading them receives them again)";
    }
  }

  /** {@link #topic(String)}. */
  record Topic(String name) implements ReplayTarget {
    public Topic {
      Objects.requireNonNull(name, "name");
      if (name.isBlank()) {
        throw new IllegalArgumentException("a replay's topic must not be blank");
      }
    }

    public String describe() {
      return name;
    }
  }
}
