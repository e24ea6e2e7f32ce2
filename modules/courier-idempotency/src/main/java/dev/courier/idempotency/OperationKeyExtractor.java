package dev.courier.idempotency;

import dev.courier.core.CourierHeaders;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;

/**
 * Where a record's operation key comes from. The key is chosen by whoever created the work (the
 * outbox writes it to header {@code id}); it is never generated at consume time, since a key made
 * up on delivery differs on redelivery and dedupes nothing.
 */
@FunctionalInterface
public interface OperationKeyExtractor<K, V> {

  /** The record's operation key, or empty when it has none. */
  Optional<String> extract(ConsumerRecord<K, V> record);

  /** A short description for error messages, e.g. {@code header 'id'}. */
  default String describe() {
    return "operation key extractor";
  }

  /**
   * The last header of this name, as UTF-8 (Courier's outbox writes the event id to {@code id}).
   */
  static <K, V> OperationKeyExtractor<K, V> header(String name) {
    Objects.requireNonNull(name, "name");
    return new OperationKeyExtractor<>() {
      @Override
      public Optional<String> extract(ConsumerRecord<K, V> record) {
        Header header = record.headers().lastHeader(name);
        if (header == null || header.value() == null || header.value().length == 0) {
          return Optional.empty();
        }
        return Optional.of(new String(header.value(), StandardCharsets.UTF_8));
      }

      @Override
      public String describe() {
        return "header '" + name + "'";
      }
    };
  }

  /**
   * Courier's rule, the default: {@code courier.operation.key} when the retry ladder has carried it
   * (a retried, dead-lettered or replayed record), else the last header of this name ({@code id},
   * where the outbox writes the event id). The retry ladder and the HTTP handler resolve it the
   * same way ({@link CourierHeaders#operationKey}).
   */
  static <K, V> OperationKeyExtractor<K, V> courier(String header) {
    Objects.requireNonNull(header, "header");
    return new OperationKeyExtractor<>() {
      @Override
      public Optional<String> extract(ConsumerRecord<K, V> record) {
        return CourierHeaders.operationKey(record.headers(), header)
            .map(b -> new String(b, StandardCharsets.UTF_8));
      }

      @Override
      public String describe() {
        return "header '" + CourierHeaders.OPERATION_KEY + "', else '" + header + "'";
      }
    };
  }

  /** A field of the payload, read by the given function (null or blank means no key). */
  static <K, V> OperationKeyExtractor<K, V> fromValue(String fieldName, Function<V, String> field) {
    return new OperationKeyExtractor<>() {
      @Override
      public Optional<String> extract(ConsumerRecord<K, V> record) {
        if (record.value() == null) {
          return Optional.empty();
        }
        String key = field.apply(record.value());
        return key == null || key.isBlank() ? Optional.empty() : Optional.of(key);
      }

      @Override
      public String describe() {
        return "payload field '" + fieldName + "'";
      }
    };
  }
}
