package dev.courier.core.internal;

import dev.courier.core.CourierTracing;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanBuilder;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.propagation.TextMapGetter;
import io.opentelemetry.context.propagation.TextMapPropagator;
import io.opentelemetry.context.propagation.TextMapSetter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;

/**
 * One component's tracing: its tracer and the propagator of the {@link OpenTelemetry} it was given.
 * {@link #NONE} (given nothing) starts no span and writes no header: its checks are a field read.
 */
public final class Traces {

  /** Tracing off: what every component has unless given an {@link OpenTelemetry}. */
  public static final Traces NONE = new Traces(null);

  private final Tracer tracer;
  private final TextMapPropagator propagator;

  private Traces(OpenTelemetry openTelemetry) {
    this.tracer = openTelemetry == null ? null : openTelemetry.getTracer(CourierTracing.SCOPE);
    this.propagator =
        openTelemetry == null ? null : openTelemetry.getPropagators().getTextMapPropagator();
  }

  /** Tracing with {@code openTelemetry}; {@link #NONE} for null. */
  public static Traces of(OpenTelemetry openTelemetry) {
    return openTelemetry == null ? NONE : new Traces(openTelemetry);
  }

  public boolean enabled() {
    return tracer != null;
  }

  /** The context a record's headers carry; root when none (or tracing is off). */
  public Context extract(Headers headers) {
    return enabled() ? propagator.extract(Context.root(), headers, KAFKA_GETTER) : Context.root();
  }

  /** The context of a string map (an outbox row's {@code tracingspancontext}). */
  public Context extract(Map<String, String> carrier) {
    return enabled() ? propagator.extract(Context.root(), carrier, MAP_GETTER) : Context.root();
  }

  /** Writes {@code context} into the headers, replacing what they carried of it. */
  public void inject(Context context, Headers headers) {
    if (enabled()) {
      propagator.inject(context, headers, KAFKA_SETTER);
    }
  }

  /** The context as a string map (what the outbox column stores). */
  public Map<String, String> inject(Context context) {
    Map<String, String> carrier = new LinkedHashMap<>();
    if (enabled()) {
      propagator.inject(context, carrier, Map::put);
    }
    return carrier;
  }

  /** A span builder; only called when {@link #enabled()}. */
  public SpanBuilder span(String name, SpanKind kind, Context parent) {
    return tracer.spanBuilder(name).setSpanKind(kind).setParent(parent);
  }

  /**
   * Starts the process span of a consumed record, a child of the context its headers carry, with
   * the messaging attributes of the semantic conventions; {@link Span#getInvalid()} when off.
   */
  public Span process(ConsumerRecord<?, ?> record, String group) {
    if (!enabled()) {
      return Span.getInvalid();
    }
    return span("process " + record.topic(), SpanKind.CONSUMER, extract(record.headers()))
        .setAttribute(CourierTracing.MESSAGING_SYSTEM, "kafka")
        .setAttribute(CourierTracing.OPERATION_TYPE, "process")
        .setAttribute(CourierTracing.OPERATION_NAME, "process")
        .setAttribute(CourierTracing.DESTINATION, record.topic())
        .setAttribute(CourierTracing.PARTITION, String.valueOf(record.partition()))
        .setAttribute(CourierTracing.OFFSET, record.offset())
        .setAttribute(CourierTracing.CONSUMER_GROUP, group)
        .startSpan();
  }

  private static final AttributeKey<String> EXCEPTION_TYPE =
      AttributeKey.stringKey("exception.type");
  private static final AttributeKey<String> EXCEPTION_MESSAGE =
      AttributeKey.stringKey("exception.message");

  /**
   * Marks a span failed by {@code error}: status, {@code error.type} and an {@code exception} event
   * with the type and message. Not the stack trace ({@code Span.recordException}): formatting it
   * took about as long as the rest of a retried record's tracing, on every failed attempt; the
   * ladder writes it on the dead letter instead ({@code retry.exception.stacktrace}).
   */
  public static void failed(Span span, Throwable error) {
    String type = error.getClass().getName();
    String message = error.getMessage() == null ? "" : error.getMessage();
    span.setStatus(StatusCode.ERROR, message);
    span.setAttribute(CourierTracing.ERROR_TYPE, type);
    span.addEvent("exception", Attributes.of(EXCEPTION_TYPE, type, EXCEPTION_MESSAGE, message));
  }

  /** Reads the last value of each header: a record carries one traceparent. */
  static final TextMapGetter<Headers> KAFKA_GETTER =
      new TextMapGetter<>() {
        @Override
        public Iterable<String> keys(Headers carrier) {
          List<String> keys = new ArrayList<>();
          for (Header h : carrier) {
            keys.add(h.key());
          }
          return keys;
        }

        @Override
        public String get(Headers carrier, String key) {
          if (carrier == null) {
            return null;
          }
          Header h = carrier.lastHeader(key);
          return h == null || h.value() == null
              ? null
              : new String(h.value(), StandardCharsets.UTF_8);
        }
      };

  /**
   * Replaces, never appends: Spring Kafka's retry topics piled up {@code traceparent} headers
   * (spring-kafka#3816), and readers disagree on which of several is meant.
   */
  static final TextMapSetter<Headers> KAFKA_SETTER =
      (carrier, key, value) -> {
        if (carrier != null) {
          carrier.remove(key);
          carrier.add(key, value.getBytes(StandardCharsets.UTF_8));
        }
      };

  private static final TextMapGetter<Map<String, String>> MAP_GETTER =
      new TextMapGetter<>() {
        @Override
        public Iterable<String> keys(Map<String, String> carrier) {
          return carrier.keySet();
        }

        @Override
        public String get(Map<String, String> carrier, String key) {
          return carrier == null ? null : carrier.get(key);
        }
      };
}
