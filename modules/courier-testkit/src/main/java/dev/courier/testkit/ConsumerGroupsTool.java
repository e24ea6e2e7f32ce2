package dev.courier.testkit;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import org.apache.kafka.tools.consumer.group.ConsumerGroupCommand;

/**
 * Apache Kafka's own {@code kafka-consumer-groups} ({@link ConsumerGroupCommand} from kafka-tools),
 * run in a child JVM exactly as an operator runs it, so tests can check that Courier agrees with
 * it.
 */
public final class ConsumerGroupsTool {

  /** One row of {@code --describe --offsets}; {@code -} cells are empty. */
  public record Row(
      String group,
      String topic,
      int partition,
      OptionalLong currentOffset,
      long logEndOffset,
      OptionalLong lag,
      String consumerId,
      String host,
      String clientId) {}

  private final String bootstrapServers;

  public ConsumerGroupsTool(String bootstrapServers) {
    this.bootstrapServers = bootstrapServers;
  }

  /** Runs the tool with these arguments (bootstrap servers added) and returns what it printed. */
  public String run(String... args) {
    List<String> all = new ArrayList<>(List.of("--bootstrap-server", bootstrapServers));
    all.addAll(List.of(args));
    try (WorkerProcess tool =
        JvmWorker.of(ConsumerGroupCommand.class)
            .name("kafka-consumer-groups")
            .jvmOption("-Xmx256m")
            .args(all.toArray(String[]::new))
            .start()) {
      int exit = tool.awaitExit(Duration.ofSeconds(60));
      if (exit != 0) {
        throw new IllegalStateException(
            "kafka-consumer-groups " + all + " exited with " + exit + ":\n" + tool.output());
      }
      return tool.output();
    }
  }

  /** {@code --describe --group <group>}, parsed. */
  public List<Row> describe(String group) {
    return parse(run("--describe", "--group", group));
  }

  /** Parses the describe table (any lines that are not rows of it are ignored). */
  public static List<Row> parse(String output) {
    List<Row> rows = new ArrayList<>();
    boolean inTable = false;
    for (String line : output.split("\n")) {
      String[] cells = line.trim().split("\\s+");
      if (cells.length >= 9 && cells[0].equals("GROUP") && cells[1].equals("TOPIC")) {
        inTable = true;
        continue;
      }
      if (!inTable || cells.length < 9 || !cells[2].matches("\\d+")) {
        continue;
      }
      rows.add(
          new Row(
              cells[0],
              cells[1],
              Integer.parseInt(cells[2]),
              optional(cells[3]),
              Long.parseLong(cells[4]),
              optional(cells[5]),
              cells[6],
              cells[7],
              cells[8]));
    }
    return rows;
  }

  private static OptionalLong optional(String cell) {
    return cell.equals("-") ? OptionalLong.empty() : OptionalLong.of(Long.parseLong(cell));
  }
}
