package dev.courier.replay;

import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.common.TopicPartition;

/**
 * Offsets in the CSV format of {@code kafka-consumer-groups --export}: {@code
 * topic,partition,offset} per line, or {@code group,topic,partition,offset} when several groups are
 * exported.
 */
public final class OffsetCsv {

  private OffsetCsv() {}

  public static String write(Map<TopicPartition, Long> offsets) {
    StringBuilder out = new StringBuilder();
    offsets.entrySet().stream()
        .sorted(
            java.util.Comparator.comparing(
                    (Map.Entry<TopicPartition, Long> e) -> e.getKey().topic())
                .thenComparingInt(e -> e.getKey().partition()))
        .forEach(
            e ->
                out.append(e.getKey().topic())
                    .append(',')
                    .append(e.getKey().partition())
                    .append(',')
                    .append(e.getValue())
                    .append('\n'));
    return out.toString();
  }

  /**
   * Reads the offsets of {@code group} (rows of other groups in a 4-column file are skipped).
   *
   * @throws IllegalArgumentException naming the line that is not in the format
   */
  public static Map<TopicPartition, Long> read(String csv, String group) {
    Map<TopicPartition, Long> offsets =
        new TreeMap<>(
            java.util.Comparator.comparing(TopicPartition::topic)
                .thenComparingInt(TopicPartition::partition));
    String[] lines = csv.split("\\R");
    for (int i = 0; i < lines.length; i++) {
      String line = lines[i].trim();
      if (line.isEmpty()) {
        continue;
      }
      String[] cells = line.split(",");
      try {
        if (cells.length == 3) {
          offsets.put(
              new TopicPartition(cells[0], Integer.parseInt(cells[1])), Long.parseLong(cells[2]));
        } else if (cells.length == 4) {
          if (cells[0].equals(group)) {
            offsets.put(
                new TopicPartition(cells[1], Integer.parseInt(cells[2])), Long.parseLong(cells[3]));
          }
        } else {
          throw new NumberFormatException("expected 3 or 4 columns");
        }
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException(
            "line "
                + (i + 1)
                + " is not topic,partition,offset or group,topic,partition,offset: '"
                + line
                + "' ("
                + e.getMessage()
                + ")",
            e);
      }
    }
    return offsets;
  }
}
