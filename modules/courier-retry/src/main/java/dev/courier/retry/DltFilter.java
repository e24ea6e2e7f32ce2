package dev.courier.retry;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Optional;

/**
 * Which dead letters to list or replay: by reason, exception, failure time, operation key ({@code
 * courier.operation.key}) and record key (the Kafka record's key, as UTF-8 text).
 */
public record DltFilter(
    Optional<String> reason,
    Optional<String> exception,
    Optional<Instant> failedFrom,
    Optional<Instant> failedTo,
    Optional<String> key,
    Optional<String> operationKey,
    Optional<String> recordKey) {

  public static DltFilter all() {
    return new DltFilter(
        Optional.empty(),
        Optional.empty(),
        Optional.empty(),
        Optional.empty(),
        Optional.empty(),
        Optional.empty(),
        Optional.empty());
  }

  public DltFilter reason(String reason) {
    return new DltFilter(
        Optional.of(reason), exception, failedFrom, failedTo, key, operationKey, recordKey);
  }

  /** Exception class names containing this text (simple or full name). */
  public DltFilter exception(String text) {
    return new DltFilter(
        reason, Optional.of(text), failedFrom, failedTo, key, operationKey, recordKey);
  }

  public DltFilter between(Instant from, Instant to) {
    return new DltFilter(
        reason, exception, Optional.of(from), Optional.of(to), key, operationKey, recordKey);
  }

  /** The record key (as UTF-8 text) or the operation key: either one equal to {@code key}. */
  public DltFilter key(String key) {
    return new DltFilter(
        reason, exception, failedFrom, failedTo, Optional.of(key), operationKey, recordKey);
  }

  /** The operation key ({@code courier.operation.key}) equal to {@code key}. */
  public DltFilter operationKey(String key) {
    return new DltFilter(
        reason, exception, failedFrom, failedTo, this.key, Optional.of(key), recordKey);
  }

  /** The Kafka record's key, as UTF-8 text, equal to {@code key}. */
  public DltFilter recordKey(String key) {
    return new DltFilter(
        reason, exception, failedFrom, failedTo, this.key, operationKey, Optional.of(key));
  }

  public boolean test(DltRecord r) {
    String op = r.operationKey().orElse(null);
    String record = r.key() == null ? null : new String(r.key(), StandardCharsets.UTF_8);
    return reason.map(x -> x.equals(r.reason())).orElse(true)
        && exception
            .map(x -> r.exceptionClass() != null && r.exceptionClass().contains(x))
            .orElse(true)
        && failedFrom.map(x -> !r.failedAt().isBefore(x)).orElse(true)
        && failedTo.map(x -> r.failedAt().isBefore(x)).orElse(true)
        && key.map(x -> x.equals(op) || x.equals(record)).orElse(true)
        && operationKey.map(x -> x.equals(op)).orElse(true)
        && recordKey.map(x -> x.equals(record)).orElse(true);
  }
}
