package dev.courier.spring;

import dev.courier.core.ClientSettings;
import dev.courier.retry.FailureClassifier;
import dev.courier.retry.RetryBudget;
import dev.courier.retry.RetryConfig;
import dev.courier.retry.RetryingConsumer;
import io.micrometer.core.instrument.MeterRegistry;
import io.opentelemetry.api.OpenTelemetry;
import java.lang.reflect.Method;
import java.time.Clock;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Supplier;
import java.util.regex.Pattern;
import org.apache.kafka.common.serialization.Deserializer;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.kafka.annotation.RetryableTopic;
import org.springframework.kafka.config.KafkaListenerContainerFactory;
import org.springframework.kafka.config.KafkaListenerEndpoint;
import org.springframework.kafka.config.MethodKafkaListenerEndpoint;
import org.springframework.kafka.support.TopicPartitionOffset;

/**
 * Puts a {@code @KafkaListener} on Courier's retry ladder: name this factory in the annotation and
 * keep the method as it is.
 *
 * <pre>{@code
 * @KafkaListener(id = "billing", topics = "shop.order", containerFactory = "courierRetryContainerFactory")
 * void on(ConsumerRecord<String, String> record) { ... }   // throw to fail the attempt
 * }</pre>
 *
 * <p>The listener's topic is {@code retry.topic}, its group ({@code groupId}, else its {@code id})
 * is {@code retry.group.id}, and every other {@code retry.*} setting comes from {@code
 * courier.retry.*}: the tier and DLT topics, headers and metrics are those of {@code courier
 * retry-worker}, so {@code courier dlt} and the monitor work on them unchanged. It replaces Spring
 * Kafka's error handling for that listener (no {@code DefaultErrorHandler}, no seek-to-current); a
 * listener that also has {@code @RetryableTopic} is refused, as are batch listeners and listeners
 * of several topics, a pattern or fixed partitions.
 */
public final class CourierRetryContainerFactory
    implements KafkaListenerContainerFactory<CourierRetryContainer> {

  /** The name the starter registers it under. */
  public static final String BEAN_NAME = "courierRetryContainerFactory";

  private final Map<String, Object> settings;
  private final Supplier<Deserializer<Object>> keys;
  private final Supplier<Deserializer<Object>> values;
  private final FailureClassifier classifier;
  private boolean autoStartup = true;
  private final MeterRegistry registry;
  private final Clock clock;
  private final OpenTelemetry openTelemetry;
  private final List<CourierRetryContainer> containers = new CopyOnWriteArrayList<>();

  /**
   * @param settings {@code retry.*}, {@code bootstrap.servers} and {@code kafka.*} settings shared
   *     by the listeners ({@code retry.topic} and {@code retry.group.id} come from each listener)
   * @param keys makes a key deserializer per consumer (Kafka closes it with the consumer)
   * @param values makes a value deserializer per consumer
   * @param classifier the failure classifier, or null for {@code retry.classification.default} and
   *     Courier's defaults
   */
  public CourierRetryContainerFactory(
      Map<String, ?> settings,
      Supplier<Deserializer<Object>> keys,
      Supplier<Deserializer<Object>> values,
      FailureClassifier classifier,
      MeterRegistry registry,
      Clock clock) {
    this(settings, keys, values, classifier, registry, clock, null);
  }

  /** As the other, tracing each attempt with {@code openTelemetry} (null: no spans). */
  public CourierRetryContainerFactory(
      Map<String, ?> settings,
      Supplier<Deserializer<Object>> keys,
      Supplier<Deserializer<Object>> values,
      FailureClassifier classifier,
      MeterRegistry registry,
      Clock clock,
      OpenTelemetry openTelemetry) {
    this.openTelemetry = openTelemetry;
    this.settings = Map.copyOf(settings);
    this.keys = Objects.requireNonNull(keys, "keys");
    this.values = Objects.requireNonNull(values, "values");
    this.classifier = classifier;
    this.registry = Objects.requireNonNull(registry, "registry");
    this.clock = Objects.requireNonNull(clock, "clock");
  }

  @Override
  public CourierRetryContainer createListenerContainer(KafkaListenerEndpoint endpoint) {
    String id = endpoint.getId();
    refuseWhatTheLadderCannotRun(endpoint, id);
    String group = endpoint.getGroupId() != null ? endpoint.getGroupId() : id;
    if (group == null || group.startsWith("org.springframework.kafka")) {
      throw new IllegalStateException(
          "a listener on Courier's retry ladder needs a groupId or an id (its consumer group,"
              + " retry.group.id, names its tier topics' offsets and its DLT records)");
    }
    Map<String, Object> listener = new HashMap<>(settings);
    if (endpoint.getConsumerProperties() != null) {
      endpoint
          .getConsumerProperties()
          .forEach((key, value) -> listener.put(ClientSettings.PREFIX + key, value));
    }
    listener.put(RetryConfig.TOPIC, endpoint.getTopics().iterator().next());
    listener.put(RetryConfig.GROUP_ID, group);
    RetryConfig config = new RetryConfig(listener); // a bad setting fails the application's start
    RetryBudget budget = config.budget(clock); // one budget for the listener's consumers
    int concurrency = endpoint.getConcurrency() == null ? 1 : endpoint.getConcurrency();
    CourierRetryContainer container =
        new CourierRetryContainer(
            id,
            config,
            concurrency,
            c -> {
              RetryingConsumer.Builder<Object, Object> consumer =
                  RetryingConsumer.builder(listener, keys.get(), values.get())
                      .handler(c::call)
                      .classifier(classifier)
                      .budget(budget)
                      .meterRegistry(registry)
                      .clock(clock);
              if (openTelemetry != null) {
                consumer.openTelemetry(openTelemetry);
              }
              return consumer.build();
            });
    endpoint.setupListenerContainer(container, null);
    // As Spring Kafka's factories: the endpoint's own setting wins, then the factory's.
    container.setAutoStartup(
        endpoint.getAutoStartup() != null ? endpoint.getAutoStartup() : autoStartup);
    containers.add(container);
    return container;
  }

  private static void refuseWhatTheLadderCannotRun(KafkaListenerEndpoint endpoint, String id) {
    if (endpoint instanceof MethodKafkaListenerEndpoint<?, ?> method
        && method.getMethod() != null
        && hasRetryableTopic(method.getMethod())) {
      throw bothLadders(id);
    }
    if (Boolean.TRUE.equals(endpoint.getBatchListener())) {
      throw new IllegalStateException(
          "listener "
              + id
              + " is a batch listener: Courier's retry ladder calls one record at a time");
    }
    TopicPartitionOffset[] partitions = endpoint.getTopicPartitionsToAssign();
    Pattern pattern = endpoint.getTopicPattern();
    if (endpoint.getTopics().size() != 1
        || pattern != null
        || (partitions != null && partitions.length > 0)) {
      throw new IllegalStateException(
          "listener "
              + id
              + " must name exactly one topic for Courier's retry ladder (its tiers and DLT are"
              + " named after it); got "
              + endpoint.getTopics()
              + (pattern == null ? "" : ", pattern " + pattern));
    }
  }

  /**
   * Whether a listener method names this factory and also has {@code @RetryableTopic}; checked
   * before Spring Kafka builds its retry topics, whose own error would not say why.
   */
  static boolean onBothLadders(Method method) {
    KafkaListener listener =
        AnnotatedElementUtils.findMergedAnnotation(method, KafkaListener.class);
    return listener != null
        && BEAN_NAME.equals(listener.containerFactory())
        && hasRetryableTopic(method);
  }

  static IllegalStateException bothLadders(String listener) {
    return new IllegalStateException(
        "listener "
            + listener
            + " has @RetryableTopic and Courier's retry ladder: choose one (both would retry"
            + " the same failure through two sets of topics)");
  }

  private static boolean hasRetryableTopic(Method method) {
    return AnnotatedElementUtils.hasAnnotation(method, RetryableTopic.class)
        || AnnotatedElementUtils.hasAnnotation(method.getDeclaringClass(), RetryableTopic.class);
  }

  /**
   * Whether the containers this factory makes start with the application context (default true; an
   * endpoint's {@code autoStartup} wins); the starter sets it from {@code
   * spring.kafka.listener.auto-startup}, as Boot does for Spring Kafka's factory.
   */
  public void setAutoStartup(boolean autoStartup) {
    this.autoStartup = autoStartup;
  }

  /** The containers made so far, for health and progress. */
  public List<CourierRetryContainer> containers() {
    return List.copyOf(containers);
  }

  @Override
  public CourierRetryContainer createContainer(TopicPartitionOffset... topicPartitions) {
    throw onlyEndpoints();
  }

  @Override
  public CourierRetryContainer createContainer(String... topics) {
    throw onlyEndpoints();
  }

  @Override
  public CourierRetryContainer createContainer(Pattern topicPattern) {
    throw onlyEndpoints();
  }

  private static UnsupportedOperationException onlyEndpoints() {
    return new UnsupportedOperationException(
        "Courier's retry ladder makes containers for @KafkaListener methods only");
  }
}
