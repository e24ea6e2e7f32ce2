package dev.courier.replay;

import dev.courier.replay.internal.KafkaOffsets;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Resets a Kafka Streams application the way {@code kafka-streams-application-reset} does, with
 * Courier's dry run and audit: the input topics' offsets of the application's group move to their
 * targets (through {@link OffsetResetter}, so each is audited and undoable), the internal topics
 * ({@code <application.id>-...-changelog} and {@code -repartition}) are deleted so no old state is
 * restored, and the local state directory of the application is removed (or {@code
 * KafkaStreams#cleanUp()} is called by the owner) before it starts again.
 */
public final class StreamsApplicationReset {

  private static final Logger LOG = LoggerFactory.getLogger(StreamsApplicationReset.class);

  /** What a reset would do: offset plans per input topic and the internal topics to delete. */
  public record Plan(String applicationId, List<ResetPlan> inputs, List<String> internalTopics) {
    public Plan {
      inputs = List.copyOf(inputs);
      internalTopics = List.copyOf(internalTopics);
    }

    public String render() {
      StringBuilder out = new StringBuilder("DRY RUN reset of Kafka Streams application ");
      out.append(applicationId).append(System.lineSeparator());
      inputs.forEach(p -> out.append(p.render()));
      out.append("internal topics to delete: ")
          .append(internalTopics.isEmpty() ? "none" : String.join(", ", internalTopics))
          .append(System.lineSeparator())
          .append("then delete the local state (state.dir/")
          .append(applicationId)
          .append(") on every instance, or call KafkaStreams#cleanUp() before start()")
          .append(System.lineSeparator());
      return out.toString();
    }
  }

  private final OffsetResetter resetter;
  private final KafkaOffsets kafka;

  /**
   * A reset of Kafka Streams applications through this Admin client (the caller's; not closed) and
   * this audited resetter.
   */
  public static StreamsApplicationReset create(Admin admin, OffsetResetter resetter) {
    return new StreamsApplicationReset(admin, resetter);
  }

  private StreamsApplicationReset(Admin admin, OffsetResetter resetter) {
    this.resetter = Objects.requireNonNull(resetter, "resetter");
    this.kafka = new KafkaOffsets(admin, Duration.ofSeconds(30));
  }

  /** The dry run: each input topic to {@code target}, internal topics found by name. */
  public Plan plan(String applicationId, List<String> inputTopics, ResetTarget target) {
    List<ResetPlan> inputs = new ArrayList<>();
    for (String topic : inputTopics) {
      inputs.add(resetter.plan(applicationId, ResetScope.topic(topic), target));
    }
    List<String> internal =
        kafka.topics().stream()
            .filter(t -> t.startsWith(applicationId + "-"))
            .filter(t -> t.endsWith("-changelog") || t.endsWith("-repartition"))
            .sorted()
            .toList();
    return new Plan(applicationId, inputs, internal);
  }

  /**
   * Applies a plan: refuses while the application runs (its group has members), then resets the
   * inputs (one audit entry each) and deletes the internal topics.
   *
   * @return the audit entries of the input resets
   */
  public List<AuditEntry> execute(Plan plan, String actor, String reason) {
    List<AuditEntry> entries = new ArrayList<>();
    for (ResetPlan input : plan.inputs()) {
      entries.add(resetter.execute(input, actor, reason + " (Kafka Streams application reset)"));
    }
    if (!plan.internalTopics().isEmpty()) {
      kafka.deleteTopics(plan.internalTopics());
      LOG.info("deleted internal topics of {}: {}", plan.applicationId(), plan.internalTopics());
    }
    return entries;
  }

  /** Deletes {@code stateDir/<applicationId>}, what {@code KafkaStreams#cleanUp()} removes. */
  public static void deleteLocalState(Path stateDir, String applicationId) {
    Path appDir = stateDir.resolve(applicationId);
    if (!Files.exists(appDir)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(appDir)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot delete local state " + appDir, e);
    }
  }
}
