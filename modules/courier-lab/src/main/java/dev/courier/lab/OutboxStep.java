package dev.courier.lab;

import dev.courier.cli.Courier;
import dev.courier.core.CourierHeaders;
import dev.courier.core.CrashPoints;
import dev.courier.idempotency.IdempotentHandler;
import dev.courier.idempotency.Outcome;
import dev.courier.outbox.OutboxEvent;
import dev.courier.outbox.OutboxRelayConfig;
import dev.courier.outbox.OutboxWriter;
import dev.courier.testkit.JvmWorker;
import dev.courier.testkit.WorkerProcess;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;

/** Step 1: the outbox relay is killed between Kafka's acknowledgement and its offset commit. */
final class OutboxStep implements LabStep {

  private static final String PREFIX = "lab_outbox";
  private static final String TOPIC = PREFIX + ".account";

  @Override
  public String id() {
    return "outbox";
  }

  @Override
  public String title() {
    return "Outbox: a committed credit survives a relay crash, and the re-send keeps its event id";
  }

  @Override
  public String why() {
    return "The credit request and its outbox row commit in one PostgreSQL transaction, so the"
        + " event exists exactly when the change does. The relay (a child JVM) is killed with"
        + " SIGKILL after Kafka acknowledged the event but before Debezium stored its position;"
        + " the restarted relay sends it again. Delivery is at least once, but the event id is"
        + " stable, so a receiver that deduplicates by it credits once.";
  }

  @Override
  public void run(Lab lab) throws Exception {
    try (Connection c = lab.db().connection();
        Statement s = c.createStatement()) {
      s.execute(
          "CREATE TABLE lab_credit_requests (id bigserial PRIMARY KEY, account text, amount int)");
      s.execute("CREATE TABLE lab_receiver (account text PRIMARY KEY, total int NOT NULL)");
      s.execute("INSERT INTO lab_receiver VALUES ('acc-17', 0)");
    }
    List<String> args =
        OutboxRelayConfig.settings(
                lab.kafka().bootstrapServers(),
                lab.db().jdbcUrl(),
                lab.db().username(),
                lab.db().password(),
                PREFIX)
            .entrySet()
            .stream()
            .flatMap(e -> Stream.of("--set", e.getKey() + "=" + e.getValue()))
            .collect(Collectors.toCollection(() -> new ArrayList<>(List.of("relay"))));
    args.addAll(List.of("--set", "relay.http.port=0"));

    WorkerProcess relay =
        relay(
            lab,
            JvmWorker.of(Courier.class)
                .name("relay")
                .args(args.toArray(String[]::new))
                .crashAt(CrashPoints.AFTER_KAFKA_SEND_BEFORE_SOURCE_OFFSET_COMMIT));
    OutboxEvent credit =
        OutboxEvent.builder()
            .aggregate("account", "acc-17")
            .eventType("CreditRequested")
            .operationKey("credit-acc-17-1")
            .json("{\"amount\":10}")
            .build();
    try (Connection c = lab.db().connection()) {
      c.setAutoCommit(false);
      try (PreparedStatement ps =
          c.prepareStatement("INSERT INTO lab_credit_requests (account, amount) VALUES (?, ?)")) {
        ps.setString(1, "acc-17");
        ps.setInt(2, 10);
        ps.executeUpdate();
      }
      OutboxWriter.create().write(c, credit);
      c.commit();
    }
    lab.say("committed: credit request for acc-17 (+10) and outbox event " + credit.eventId());
    lab.expect(
        "relay killed with SIGKILL at after-kafka-send-before-source-offset-commit, exit status",
        relay.killAtCrashPoint(Lab.TIMEOUT),
        WorkerProcess.SIGKILL_EXIT_STATUS);
    lab.expect(
        "records on " + TOPIC + " before the restart", lab.read(TOPIC, 1, Lab.TIMEOUT).size(), 1);

    WorkerProcess restarted =
        relay(lab, JvmWorker.of(Courier.class).name("relay").args(args.toArray(String[]::new)));
    List<ConsumerRecord<String, String>> delivered = lab.read(TOPIC, 2, Lab.TIMEOUT);
    lab.expect("records after the restart (the event was sent again)", delivered.size(), 2);
    lab.expect(
        "event ids of the deliveries",
        delivered.stream().map(r -> header(r, CourierHeaders.ID)).distinct().toList(),
        List.of(credit.eventId().toString()));

    lab.expect("total of a receiver that credits every delivery", delivered.size() * 10, 20);
    IdempotentHandler<String, String> receiver =
        IdempotentHandler.<String, String>builder()
            .dataSource(lab.db().dataSource())
            .consumerName("lab-receiver")
            .meterRegistry(new SimpleMeterRegistry())
            .effect(
                (c, record) -> {
                  try (PreparedStatement ps =
                      c.prepareStatement(
                          "UPDATE lab_receiver SET total = total + 10 WHERE account = ?")) {
                    ps.setString(1, record.key());
                    ps.executeUpdate();
                  }
                })
            .build();
    lab.expect(
        "outcomes of the deduplicating receiver",
        delivered.stream().map(receiver::handle).toList(),
        List.of(Outcome.APPLIED, Outcome.DUPLICATE));
    lab.expect("total of the deduplicating receiver", receiverTotal(lab), 10);
    lab.expect(
        "relay stopped with SIGTERM (engine closed, position stored), exit status",
        restarted.terminate(Duration.ofSeconds(60)),
        WorkerProcess.SIGTERM_EXIT_STATUS);
  }

  private static WorkerProcess relay(Lab lab, JvmWorker worker) throws Exception {
    WorkerProcess process = worker.start();
    lab.await(
        "the relay to stream changes",
        () -> process.output().contains(Courier.RELAY_STREAMING) || !process.isAlive(),
        Boolean::booleanValue);
    if (!process.isAlive() && !process.output().contains(Courier.RELAY_STREAMING)) {
      throw new IllegalStateException("the relay exited at start:\n" + process.output());
    }
    return process;
  }

  private static int receiverTotal(Lab lab) throws Exception {
    try (Connection c = lab.db().connection();
        ResultSet rs =
            c.createStatement()
                .executeQuery("SELECT total FROM lab_receiver WHERE account = 'acc-17'")) {
      rs.next();
      return rs.getInt(1);
    }
  }

  static String header(ConsumerRecord<?, ?> record, String name) {
    Header h = record.headers().lastHeader(name);
    return h == null ? null : new String(h.value(), StandardCharsets.UTF_8);
  }
}
