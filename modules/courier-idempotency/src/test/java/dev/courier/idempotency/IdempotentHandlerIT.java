package dev.courier.idempotency;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.courier.core.CourierHeaders;
import dev.courier.testkit.CourierInfraTest;
import dev.courier.testkit.TestDatabase;
import dev.courier.testkit.UniqueNames;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The handler on a real PostgreSQL, called as a framework's listener would call it. */
@CourierInfraTest
class IdempotentHandlerIT {

  private final TestDatabase db;
  private PrometheusMeterRegistry registry;
  private IdempotentHandler<String, String> handler;
  private String consumer;
  private long offset;

  IdempotentHandlerIT(TestDatabase db) {
    this.db = db;
  }

  @BeforeEach
  void setUp() throws SQLException {
    try (Connection c = db.connection();
        Statement s = c.createStatement()) {
      s.execute(
          "CREATE TABLE IF NOT EXISTS ledger_lines (operation text, account integer, amount integer)");
    }
    registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    consumer = UniqueNames.group("billing");
    handler =
        IdempotentHandler.<String, String>builder()
            .dataSource(db.dataSource())
            .consumerName(consumer)
            .canonicalForm(CanonicalForm.json())
            .meterRegistry(registry)
            .effect(
                (c, record) -> {
                  if (record.value().contains("\"amount\":-1")) {
                    throw new IllegalArgumentException("negative amount");
                  }
                  try (PreparedStatement ps =
                      c.prepareStatement("INSERT INTO ledger_lines VALUES (?, 17, 10)")) {
                    ps.setString(
                        1, new String(record.headers().lastHeader(CourierHeaders.ID).value()));
                    ps.executeUpdate();
                  }
                })
            .build();
  }

  @Test
  void sameKeySamePayloadIsSkippedEvenWithOtherJsonLayout() throws SQLException {
    assertThat(handler.handle(record("op-1", "{\"account\":17,\"amount\":10}")))
        .isEqualTo(Outcome.APPLIED);
    assertThat(handler.handle(record("op-1", "{ \"amount\": 10, \"account\": 17 }")))
        .isEqualTo(Outcome.DUPLICATE);
    assertThat(lines("op-1")).isEqualTo(1);
  }

  @Test
  void inTheCallersTransactionTheKeyAndTheEffectCommitOrRollBackWithIt() throws SQLException {
    ConsumerRecord<String, String> first = record("op-joined", "{\"account\":17,\"amount\":10}");
    try (Connection c = db.connection()) {
      c.setAutoCommit(false);
      assertThat(handler.handle(c, first)).isEqualTo(Outcome.APPLIED);
      c.rollback(); // the caller's own work failed after the handler returned
    }
    assertThat(lines("op-joined")).as("rolled back with the caller").isZero();

    try (Connection c = db.connection()) {
      c.setAutoCommit(false);
      assertThat(handler.handle(c, first)).isEqualTo(Outcome.APPLIED);
      c.commit();
    }
    try (Connection c = db.connection()) {
      c.setAutoCommit(false);
      assertThat(handler.handle(c, record("op-joined", "{\"amount\":10,\"account\":17}")))
          .isEqualTo(Outcome.DUPLICATE);
      c.commit();
    }
    assertThat(lines("op-joined")).isEqualTo(1);

    try (Connection c = db.connection()) {
      assertThatThrownBy(() -> handler.handle(c, record("op-auto", "{\"amount\":1}")))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("autocommit");
    }
    assertThat(lines("op-auto")).isZero();
  }

  @Test
  void keyReusedWithAnotherPayloadIsRefusedAndRecorded() throws SQLException {
    handler.handle(record("op-2", "{\"account\":17,\"amount\":10}"));
    ConsumerRecord<String, String> reuse = record("op-2", "{\"account\":17,\"amount\":99}");

    assertThatThrownBy(() -> handler.handle(reuse))
        .isInstanceOfSatisfying(
            IdempotencyKeyReusedException.class,
            e -> {
              assertThat(e.reason()).isEqualTo("key-reused");
              assertThat(e.operationKey()).isEqualTo("op-2");
            })
        .hasMessageContaining("credits-0@" + reuse.offset())
        .hasMessageContaining("with a different payload");

    assertThat(lines("op-2")).as("nothing of the reuse applied").isEqualTo(1);
    try (Connection c = db.connection();
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT reason, detail, record_offset, stored_fingerprint <> received_fingerprint"
                    + " FROM courier_idempotency_rejections WHERE consumer = ?")) {
      ps.setString(1, consumer);
      try (ResultSet rs = ps.executeQuery()) {
        assertThat(rs.next()).isTrue();
        assertThat(rs.getString(1)).isEqualTo("key-reused");
        assertThat(rs.getString(2)).contains("op-2");
        assertThat(rs.getLong(3)).isEqualTo(reuse.offset());
        assertThat(rs.getBoolean(4)).isTrue();
      }
    }
  }

  @Test
  void recordWithoutKeyIsAPermanentErrorWithItsReason() {
    ConsumerRecord<String, String> noKey =
        new ConsumerRecord<>("credits", 0, 99, "17", "{\"amount\":10}");
    assertThatThrownBy(() -> handler.handle(noKey))
        .isInstanceOfSatisfying(
            MissingOperationKeyException.class,
            e -> assertThat(e.reason()).isEqualTo("missing-key"))
        .hasMessage(
            "record credits-0@99 has no operation key in header 'courier.operation.key', else"
                + " 'id'; the key must be set by the producer, it is never generated on delivery");
  }

  @Test
  void effectFailureCommitsNothing() throws SQLException {
    assertThatThrownBy(() -> handler.handle(record("op-3", "{\"amount\":-1}")))
        .isInstanceOf(RecordEffectException.class)
        .hasMessageContaining("negative amount");
    // Nothing recorded: a later delivery of a corrected payload under the key is not a reuse.
    assertThat(handler.handle(record("op-3", "{\"amount\":10}"))).isEqualTo(Outcome.APPLIED);
  }

  @Test
  void batchWithABadRecordInTheMiddleCommitsTheOthers() throws SQLException {
    handler.handle(record("b-0", "{\"amount\":10}"));
    List<ConsumerRecord<String, String>> batch = new ArrayList<>();
    batch.add(record("b-0", "{\"amount\":10}")); // redelivered
    batch.add(record("b-1", "{\"amount\":10}"));
    batch.add(record("b-2", "{\"amount\":-1}")); // effect fails
    batch.add(record("b-3", "{\"amount\":10}"));
    batch.add(record("b-1", "{\"amount\":10}")); // repeated inside the batch
    batch.add(record("b-0", "{\"amount\":55}")); // reuse of an earlier key

    List<RecordResult<String, String>> results = handler.handleBatch(batch);

    assertThat(results)
        .extracting(RecordResult::outcome)
        .containsExactly(
            Outcome.DUPLICATE,
            Outcome.APPLIED,
            Outcome.FAILED,
            Outcome.APPLIED,
            Outcome.DUPLICATE,
            Outcome.FAILED);
    assertThat(results.get(2).failure()).hasMessageContaining("negative amount");
    assertThat(results.get(5).failure()).isInstanceOf(IdempotencyKeyReusedException.class);
    assertThat(lines("b-0")).isEqualTo(1);
    assertThat(lines("b-1")).isEqualTo(1);
    assertThat(lines("b-2")).isZero();
    assertThat(lines("b-3")).isEqualTo(1);
    // The failed record's key was taken back: it can be applied when delivered again.
    assertThat(handler.handle(record("b-2", "{\"amount\":10}"))).isEqualTo(Outcome.APPLIED);
  }

  /**
   * Two members handle the same key in batches at once (a rebalance): the second batch's insert
   * waits for the first transaction, and once that commits the key counts as there before, so its
   * effect runs once.
   */
  @Test
  void aBatchRacingAnotherOnTheSameKeyAppliesItOnce() throws Exception {
    CountDownLatch firstInside = new CountDownLatch(1);
    CountDownLatch releaseFirst = new CountDownLatch(1);
    IdempotentHandler<String, String> holding =
        IdempotentHandler.<String, String>builder()
            .dataSource(db.dataSource())
            .consumerName(consumer)
            .canonicalForm(CanonicalForm.json())
            .meterRegistry(registry)
            .effect(
                (c, record) -> {
                  try (PreparedStatement ps =
                      c.prepareStatement("INSERT INTO ledger_lines VALUES (?, 17, 10)")) {
                    ps.setString(
                        1, new String(record.headers().lastHeader(CourierHeaders.ID).value()));
                    ps.executeUpdate();
                  }
                  firstInside.countDown();
                  releaseFirst.await();
                })
            .build();
    ExecutorService members = Executors.newFixedThreadPool(2);
    try {
      List<ConsumerRecord<String, String>> firstBatch =
          List.of(record("race-1", "{\"amount\":10}"));
      List<ConsumerRecord<String, String>> secondBatch =
          List.of(record("race-1", "{\"amount\":10}"), record("race-2", "{\"amount\":10}"));
      Future<List<RecordResult<String, String>>> first =
          members.submit(() -> holding.handleBatch(firstBatch));
      assertThat(firstInside.await(10, TimeUnit.SECONDS)).isTrue();
      Future<List<RecordResult<String, String>>> second =
          members.submit(() -> handler.handleBatch(secondBatch));
      // The second insert waits on the first transaction's uncommitted key.
      await()
          .during(Duration.ofMillis(300))
          .atMost(Duration.ofSeconds(5))
          .until(() -> !second.isDone());
      releaseFirst.countDown();

      assertThat(first.get(10, TimeUnit.SECONDS))
          .extracting(RecordResult::outcome)
          .containsExactly(Outcome.APPLIED);
      assertThat(second.get(10, TimeUnit.SECONDS))
          .extracting(RecordResult::outcome)
          .containsExactly(Outcome.DUPLICATE, Outcome.APPLIED);
      assertThat(lines("race-1")).isEqualTo(1);
      assertThat(lines("race-2")).isEqualTo(1);
    } finally {
      releaseFirst.countDown();
      members.shutdownNow();
    }
  }

  @Test
  void metricsHavePrometheusNames() {
    handler.handle(record("m-1", "{\"amount\":10}"));
    handler.handle(record("m-1", "{\"amount\":10}"));
    String scrape = registry.scrape();
    assertThat(scrape)
        .contains("courier_idempotency_processed_total{group=\"" + consumer + "\"} 1.0")
        .contains("courier_idempotency_duplicates_total{group=\"" + consumer + "\"} 1.0")
        .contains("courier_idempotency_key_reuses_total")
        .contains("courier_idempotency_store_rows");
  }

  private ConsumerRecord<String, String> record(String key, String value) {
    RecordHeaders headers = new RecordHeaders();
    headers.add(CourierHeaders.ID, key.getBytes(StandardCharsets.UTF_8));
    return new ConsumerRecord<>(
        "credits",
        0,
        offset++,
        0L,
        TimestampType.CREATE_TIME,
        0,
        0,
        "17",
        value,
        headers,
        java.util.Optional.empty());
  }

  private long lines(String operation) throws SQLException {
    try (Connection c = db.connection();
        PreparedStatement ps =
            c.prepareStatement("SELECT count(*) FROM ledger_lines WHERE operation = ?")) {
      ps.setString(1, operation);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    }
  }
}
