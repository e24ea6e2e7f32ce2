package dev.courier.replay;

import java.util.List;
import java.util.Locale;

/** A group as {@code kafka-consumer-groups --describe} shows it, plus its state and members. */
public record GroupView(String group, String state, List<Member> members, List<Row> rows) {

  /** A live member of the group. */
  public record Member(String consumerId, String host, String clientId, int partitions) {}

  /** One partition row; {@code currentOffset} and {@code lag} are -1 where the tool prints "-". */
  public record Row(
      String topic,
      int partition,
      long currentOffset,
      long logEndOffset,
      long lag,
      String consumerId,
      String host,
      String clientId) {}

  public GroupView {
    members = List.copyOf(members);
    rows = List.copyOf(rows);
  }

  public boolean active() {
    return !members.isEmpty();
  }

  public String render() {
    StringBuilder out = new StringBuilder();
    out.append("Consumer group '")
        .append(group)
        .append("' is ")
        .append(state)
        .append(" with ")
        .append(members.size())
        .append(" member(s).")
        .append(System.lineSeparator());
    String format = "%-25s %-25s %-10s %-15s %-15s %-8s %-40s %-16s %s%n";
    out.append(
        String.format(
            Locale.ROOT,
            format,
            "GROUP",
            "TOPIC",
            "PARTITION",
            "CURRENT-OFFSET",
            "LOG-END-OFFSET",
            "LAG",
            "CONSUMER-ID",
            "HOST",
            "CLIENT-ID"));
    for (Row r : rows) {
      out.append(
          String.format(
              Locale.ROOT,
              format,
              group,
              r.topic(),
              r.partition(),
              r.currentOffset() < 0 ? "-" : r.currentOffset(),
              r.logEndOffset(),
              r.lag() < 0 ? "-" : r.lag(),
              r.consumerId(),
              r.host(),
              r.clientId()));
    }
    return out.toString();
  }
}
