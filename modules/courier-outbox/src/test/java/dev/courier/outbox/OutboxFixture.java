package dev.courier.outbox;

import static org.assertj.core.api.Assertions.assertThat;

import dev.courier.core.CourierHeaders;
import dev.courier.testkit.KafkaBroker;
import dev.courier.testkit.TestDatabase;
import dev.courier.testkit.UniqueNames;
import java.sql.Connection;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/** A relay's settings on the testkit's broker and database, with names of its own. */
final class OutboxFixture {

  final String prefix = UniqueNames.topic("outbox").replace('-', '_');
  final Map<String, String> settings = new HashMap<>();

  OutboxFixture(KafkaBroker kafka, TestDatabase db) {
    this(kafka.bootstrapServers(), db);
  }

  OutboxFixture(String bootstrapServers, TestDatabase db) {
    settings.putAll(
        OutboxRelayConfig.settings(
            bootstrapServers, db.jdbcUrl(), db.username(), db.password(), prefix));
  }

  OutboxFixture with(String key, String value) {
    settings.put(key, value);
    return this;
  }

  String[] args() {
    return args(Map.of());
  }

  /** These settings, with some replaced, as a child JVM's arguments. */
  String[] args(Map<String, String> replaced) {
    Map<String, String> all = new HashMap<>(settings);
    all.putAll(replaced);
    return all.entrySet().stream().map(e -> e.getKey() + "=" + e.getValue()).toArray(String[]::new);
  }

  String topic(String aggregateType) {
    return prefix + "." + aggregateType;
  }

  /** Reads a topic from the start until {@code count} records or the timeout. */
  static List<ConsumerRecord<String, String>> read(
      KafkaBroker kafka, String topic, int count, Duration timeout) {
    return kafka.readStrings(topic, count, timeout);
  }

  static String header(ConsumerRecord<?, ?> record, String name) {
    var header = record.headers().lastHeader(name);
    return header == null
        ? null
        : new String(header.value(), java.nio.charset.StandardCharsets.UTF_8);
  }

  /** The term of the relay that published a record, from its courier.relay header. */
  static long incarnation(ConsumerRecord<?, ?> record) {
    String relay = header(record, CourierHeaders.RELAY);
    assertThat(relay).as("every record names its relay and term").isNotNull().contains("#");
    return Long.parseLong(relay.substring(relay.lastIndexOf('#') + 1));
  }

  /** Commits one credit event for the account; its event id. */
  static String write(TestDatabase db, String account) throws Exception {
    return write(db, account, OutboxWriter.create());
  }

  /**
   * As {@link #write(TestDatabase, String)}, with a writer that does not check the slot first: one
   * that found it there less than 30 s before it was dropped, so its event falls in the gap.
   */
  static String writeUnchecked(TestDatabase db, String account) throws Exception {
    return write(db, account, OutboxWriter.builder().checkCapture(false).build());
  }

  private static String write(TestDatabase db, String account, OutboxWriter writer)
      throws Exception {
    OutboxEvent event = OutboxRelayIT.credit(account, 10).build();
    try (Connection c = db.connection()) {
      c.setAutoCommit(false);
      writer.write(c, event);
      c.commit();
    }
    return event.eventId().toString();
  }
}
