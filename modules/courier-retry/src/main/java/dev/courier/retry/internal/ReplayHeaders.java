package dev.courier.retry.internal;

import dev.courier.core.CourierHeaders;
import dev.courier.retry.DltRecord;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import org.apache.kafka.common.header.Headers;

/**
 * The ladder's headers on a dead letter replayed into a tier of its group's ladder: the tier reads
 * it as that group's retry of the original record, due now, its attempts afresh.
 */
public final class ReplayHeaders {

  private ReplayHeaders() {}

  public static void ladder(Headers headers, DltRecord letter, String group, Instant now) {
    put(headers, CourierHeaders.ORIGINAL_TOPIC, letter.originalTopic());
    put(headers, CourierHeaders.ORIGINAL_PARTITION, String.valueOf(letter.originalPartition()));
    put(headers, CourierHeaders.ORIGINAL_OFFSET, String.valueOf(letter.originalOffset()));
    letter
        .header(CourierHeaders.ORIGINAL_TIMESTAMP)
        .ifPresent(t -> put(headers, CourierHeaders.ORIGINAL_TIMESTAMP, t));
    letter.operationKey().ifPresent(k -> put(headers, CourierHeaders.OPERATION_KEY, k));
    put(headers, CourierHeaders.ATTEMPT, "1");
    put(headers, CourierHeaders.DUE, String.valueOf(now.toEpochMilli()));
    put(headers, CourierHeaders.GROUP, group);
  }

  private static void put(Headers headers, String name, String value) {
    headers.add(name, value.getBytes(StandardCharsets.UTF_8));
  }
}
