package dev.courier.replay;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Objects;
import org.apache.kafka.common.TopicPartition;

/**
 * Where to move a group's offsets: the targets of {@code kafka-consumer-groups --reset-offsets}.
 */
public sealed interface ResetTarget {

  /** The target as Kafka's tool spells it, e.g. {@code --shift-by -2}; stored in the audit log. */
  String describe();

  record ToEarliest() implements ResetTarget {
    public String describe() {
      return "--to-earliest";
    }
  }

  record ToLatest() implements ResetTarget {
    public String describe() {
      return "--to-latest";
    }
  }

  record ToOffset(long offset) implements ResetTarget {
    public ToOffset {
      if (offset < 0) {
        throw new IllegalArgumentException("offset must be >= 0, got " + offset);
      }
    }

    public String describe() {
      return "--to-offset " + offset;
    }
  }

  record ShiftBy(long delta) implements ResetTarget {
    public String describe() {
      return "--shift-by " + delta;
    }
  }

  /** The first offset whose timestamp is at or after the instant (Kafka's ListOffsets). */
  record ToDatetime(Instant at) implements ResetTarget {
    public ToDatetime {
      Objects.requireNonNull(at, "at");
    }

    public String describe() {
      return "--to-datetime " + at;
    }
  }

  /** {@link ToDatetime} of now minus the duration, taken when the plan is made. */
  record ByDuration(Duration ago) implements ResetTarget {
    public ByDuration {
      if (ago.isNegative()) {
        throw new IllegalArgumentException("duration must be >= 0, got " + ago);
      }
    }

    public String describe() {
      return "--by-duration " + ago;
    }
  }

  /** Offsets per partition, e.g. read from a CSV in Kafka's export format. */
  record FromFile(Map<TopicPartition, Long> offsets) implements ResetTarget {
    public FromFile {
      offsets = Map.copyOf(offsets);
      if (offsets.isEmpty()) {
        throw new IllegalArgumentException("the offsets file names no partition");
      }
    }

    public String describe() {
      return "--from-file (" + offsets.size() + " partitions)";
    }
  }

  static ResetTarget earliest() {
    return new ToEarliest();
  }

  static ResetTarget latest() {
    return new ToLatest();
  }

  static ResetTarget offset(long offset) {
    return new ToOffset(offset);
  }

  static ResetTarget shiftBy(long delta) {
    return new ShiftBy(delta);
  }

  static ResetTarget datetime(Instant at) {
    return new ToDatetime(at);
  }

  static ResetTarget duration(Duration ago) {
    return new ByDuration(ago);
  }

  static ResetTarget fromFile(Map<TopicPartition, Long> offsets) {
    return new FromFile(offsets);
  }
}
