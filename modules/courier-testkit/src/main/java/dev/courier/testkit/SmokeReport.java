package dev.courier.testkit;

import java.util.List;

/**
 * What the smoke scenario observed.
 *
 * @param backend the backend that ran, and why
 * @param produced values produced to the topic, in order
 * @param consumed values the consumer group read back, in order
 * @param committedOffset the group's committed offset on partition 0 after the commit
 * @param change the row change read back from the logical replication slot
 */
public record SmokeReport(
    Backend backend,
    String backendReason,
    String topic,
    String group,
    List<String> produced,
    List<String> consumed,
    long committedOffset,
    String slot,
    LogicalChange change) {

  public SmokeReport {
    produced = List.copyOf(produced);
    consumed = List.copyOf(consumed);
  }

  /** Whether every observation is what the scenario expects. */
  public boolean passed() {
    return consumed.equals(produced)
        && committedOffset == produced.size()
        && change != null
        && "INSERT".equals(change.operation());
  }

  /** The report as lines for a console. */
  public List<String> lines() {
    return List.of(
        "backend            " + backend.id() + " (" + backendReason + ")",
        "kafka topic        "
            + topic
            + ": produced "
            + produced.size()
            + ", consumed "
            + consumed.size()
            + " by group "
            + group,
        "committed offset   " + committedOffset + " (expected " + produced.size() + ")",
        "replication slot   " + slot + " (pgoutput)",
        "change from slot   " + change,
        "result             " + (passed() ? "PASSED" : "FAILED"));
  }
}
