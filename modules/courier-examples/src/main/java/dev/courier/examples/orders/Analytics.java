package dev.courier.examples.orders;

import dev.courier.schema.KafkaAvroDeserializer;
import dev.courier.schema.KafkaAvroSerializer;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.CloseOptions;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StoreQueryParameters;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Grouped;
import org.apache.kafka.streams.kstream.KTable;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.QueryableStoreTypes;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;

/**
 * The analytics reference consumer: a Kafka Streams application ({@code exactly_once_v2}) over the
 * same order topic that keeps a projection of counts and totals per order status ({@code
 * status:paid}) and per account ({@code account:acc-1}) in queryable state stores and writes it to
 * a compacted topic. Each order's state is folded first, so the projection counts orders, not
 * events, and a replay of the topic recomputes the same figures.
 */
public final class Analytics implements AutoCloseable {

  public static final String BY_STATUS_STORE = "analytics-by-status";
  public static final String BY_ACCOUNT_STORE = "analytics-by-account";

  private final KafkaStreams streams;

  private Analytics(KafkaStreams streams) {
    this.streams = streams;
  }

  /** The projection's topology; {@code events} reads the order topic's values. */
  public static Topology topology(String inputTopic, String outputTopic, Serde<Object> events) {
    StreamsBuilder builder = new StreamsBuilder();
    Serde<OrderState> orderSerde = JsonSerde.of(OrderState.class);
    Serde<Totals> totalsSerde = JsonSerde.of(Totals.class);
    KTable<String, OrderState> orders =
        builder.stream(inputTopic, Consumed.with(Serdes.String(), events))
            .groupByKey(Grouped.with(Serdes.String(), events))
            .aggregate(
                () -> OrderState.NONE,
                (orderId, event, state) -> state.apply(event),
                Materialized.<String, OrderState, KeyValueStore<Bytes, byte[]>>as(
                        "analytics-orders")
                    .withKeySerde(Serdes.String())
                    .withValueSerde(orderSerde));
    KTable<String, OrderState> known = orders.filter((id, order) -> order.known());
    project(
        known,
        "status:",
        OrderState::status,
        BY_STATUS_STORE,
        orderSerde,
        totalsSerde,
        outputTopic);
    project(
        known,
        "account:",
        OrderState::accountId,
        BY_ACCOUNT_STORE,
        orderSerde,
        totalsSerde,
        outputTopic);
    return builder.build();
  }

  private static void project(
      KTable<String, OrderState> orders,
      String prefix,
      java.util.function.Function<OrderState, String> dimension,
      String store,
      Serde<OrderState> orderSerde,
      Serde<Totals> totalsSerde,
      String outputTopic) {
    orders
        .groupBy(
            (id, order) -> KeyValue.pair(prefix + dimension.apply(order), order),
            Grouped.with(store + "-by", Serdes.String(), orderSerde))
        .aggregate(
            () -> Totals.ZERO,
            (key, order, totals) -> totals.plus(order),
            (key, order, totals) -> totals.minus(order),
            Materialized.<String, Totals, KeyValueStore<Bytes, byte[]>>as(store)
                .withKeySerde(Serdes.String())
                .withValueSerde(totalsSerde))
        .toStream()
        .to(outputTopic, Produced.with(Serdes.String(), totalsSerde));
  }

  /**
   * Starts the application. {@code streamsConfig} needs {@code application.id} and {@code
   * bootstrap.servers}; exactly-once v2 is set here.
   */
  public static Analytics start(
      Properties streamsConfig, String registryUrl, String inputTopic, String outputTopic) {
    Properties props = new Properties();
    props.putAll(streamsConfig);
    props.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
    Map<String, Object> serde = new HashMap<>();
    serde.put("schema.registry.url", registryUrl);
    serde.put("specific.avro.reader", true);
    serde.put(
        "value.subject.name.strategy",
        "io.confluent.kafka.serializers.subject.TopicRecordNameStrategy");
    KafkaAvroSerializer serializer = new KafkaAvroSerializer();
    serializer.configure(serde, false);
    KafkaAvroDeserializer deserializer = new KafkaAvroDeserializer();
    deserializer.configure(serde, false);
    @SuppressWarnings({"unchecked", "rawtypes"})
    Serde<Object> events = (Serde) Serdes.serdeFrom(serializer, deserializer);
    KafkaStreams streams = new KafkaStreams(topology(inputTopic, outputTopic, events), props);
    streams.start();
    return new Analytics(streams);
  }

  public KafkaStreams.State state() {
    return streams.state();
  }

  /** A projection cell from the local store, or {@link Totals#ZERO} when absent. */
  public Totals query(String key) {
    String store = key.startsWith("account:") ? BY_ACCOUNT_STORE : BY_STATUS_STORE;
    ReadOnlyKeyValueStore<String, Totals> view =
        streams.store(
            StoreQueryParameters.fromNameAndType(store, QueryableStoreTypes.keyValueStore()));
    Totals totals = view.get(key);
    return totals == null ? Totals.ZERO : totals;
  }

  /** Stops and leaves the group at once, so its offsets can be reset right after. */
  @Override
  public void close() {
    streams.close(
        CloseOptions.groupMembershipOperation(CloseOptions.GroupMembershipOperation.LEAVE_GROUP)
            .withTimeout(Duration.ofSeconds(30)));
  }

  /** Deletes this instance's local state (call after close, before restarting after a reset). */
  public void cleanUp() {
    streams.cleanUp();
  }
}
