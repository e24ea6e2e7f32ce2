package dev.courier.retry;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Optional;

/** Which dead letters to list or replay: by reason, exception, failure time and key. */
public record DltFilter(
    Optional<String> reason,
    Optional<String> exception,
    Optional<Instant> failedFrom,
    Optional<Instant> failedTo,
    Optional<String> key) {

  public static DltFilter all() {
    return new DltFilter(
        Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty());
  }

  public DltFilter reason(String reason) {
    return new DltFilter(Optional.of(reason), exception, failedFrom, failedTo, key);
  }

  /** Exception class names containing this text (simple or full name). */
  public DltFilter exception(String text) {
    return new DltFilter(reason, Optional.of(text), failedFrom, failedTo, key);
  }

  public DltFilter between(Instant from, Instant to) {
    return new DltFilter(reason, exception, Optional.of(from), Optional.of(to), key);
  }

  /** The record key (as UTF-8 text) or the operation key. */
  public DltFilter key(String key) {
    return new DltFilter(reason, exception, failedFrom, failedTo, Optional.of(key));
  }

  public boolean test(DltRecord r) {
    return reason.map(x -> x.equals(r.reason())).orElse(true)
        && exception
            .map(x -> r.exceptionClass() != null && r.exceptionClass().contains(x))
            .orElse(true)
        && failedFrom.map(x -> !r.failedAt().isBefore(x)).orElse(true)
        && failedTo.map(x -> r.failedAt().isBefore(x)).orElse(true)
        && key.map(
                x ->
                    x.equals(r.operationKey().orElse(null))
                        || (r.key() != null
                            && x.equals(new String(r.key(), StandardCharsets.UTF_8))))
            .orElse(true);
  }
}
