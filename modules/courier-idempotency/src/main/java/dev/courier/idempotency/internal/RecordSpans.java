package dev.courier.idempotency.internal;

import dev.courier.core.CourierTracing;
import dev.courier.core.internal.Traces;
import dev.courier.idempotency.Outcome;
import dev.courier.idempotency.RecordResult;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.context.Scope;
import java.util.Locale;
import java.util.Optional;
import java.util.function.Supplier;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * The idempotent consumer's span of each record: {@code process <topic>}, a child of the context
 * the record carries, current while the effect and the dedupe record are written (the store sets
 * the operation key on it), ending with the outcome: {@code applied}, {@code duplicate} (the effect
 * skipped, said by the span's {@code duplicate skipped} event too) or {@code failed}. In batch mode
 * the spans are made as the batch settles, with the key the handler reports.
 */
public final class RecordSpans {

  private final Traces traces;
  private final String group;

  public RecordSpans(Traces traces, String group) {
    this.traces = traces;
    this.group = group;
  }

  public boolean enabled() {
    return traces.enabled();
  }

  /** Handles one record inside its span (single mode). */
  public <K, V> RecordResult<K, V> around(
      ConsumerRecord<K, V> record, Supplier<RecordResult<K, V>> handling) {
    if (!traces.enabled()) {
      return handling.get();
    }
    Span span = traces.process(record, group);
    try (Scope ignored = span.makeCurrent()) {
      RecordResult<K, V> result = handling.get();
      end(span, result);
      return result;
    } catch (RuntimeException | Error e) {
      Traces.failed(span, e);
      span.end();
      throw e;
    }
  }

  /**
   * A record settled in a batch (batch mode): its span covers the settling, since the batch's one
   * transaction has no per-record extent; {@code operationKey} is what the store recorded it under.
   */
  public <K, V> void settled(RecordResult<K, V> result, Optional<String> operationKey) {
    if (traces.enabled()) {
      Span span = traces.process(result.record(), group);
      operationKey.ifPresent(k -> span.setAttribute(CourierTracing.OPERATION_KEY, k));
      end(span, result);
    }
  }

  private static void end(Span span, RecordResult<?, ?> result) {
    span.setAttribute(CourierTracing.OUTCOME, result.outcome().name().toLowerCase(Locale.ROOT));
    if (result.outcome() == Outcome.DUPLICATE) {
      span.addEvent("duplicate skipped");
    } else if (result.outcome() == Outcome.FAILED) {
      Traces.failed(span, result.failure());
    }
    span.end();
  }
}
