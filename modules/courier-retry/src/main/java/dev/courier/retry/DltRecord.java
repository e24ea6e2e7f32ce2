package dev.courier.retry;

import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.apache.kafka.common.header.Header;

/**
 * A dead letter: where it sits in the DLT, the original record's bytes and headers, and why it
 * failed.
 */
public record DltRecord(
    String dltTopic,
    int partition,
    long offset,
    byte[] key,
    byte[] value,
    List<Header> headers,
    String originalTopic,
    int originalPartition,
    long originalOffset,
    String reason,
    String exceptionClass,
    String message,
    int attempts,
    Instant failedAt,
    Optional<String> operationKey) {

  public DltRecord {
    headers = List.copyOf(headers);
  }

  public String coordinates() {
    return dltTopic + "-" + partition + "@" + offset;
  }

  /** The record's own headers, without Courier's failure headers. */
  public List<Header> ownHeaders() {
    return headers.stream().filter(h -> !RetryHeaders.FAILURE_HEADERS.contains(h.key())).toList();
  }

  public String render() {
    return String.format(
        java.util.Locale.ROOT,
        "%s  from %s-%d@%d  reason=%s  attempts=%d  failed=%s  key=%s  %s: %s",
        coordinates(),
        originalTopic,
        originalPartition,
        originalOffset,
        reason,
        attempts,
        failedAt,
        operationKey.orElse("-"),
        exceptionClass,
        message);
  }
}
