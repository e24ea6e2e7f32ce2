package dev.courier.lab;

import dev.courier.core.CourierHeaders;
import dev.courier.core.CrashPoints;
import dev.courier.examples.credit.CreditWorker;
import dev.courier.testkit.JvmWorker;
import dev.courier.testkit.WorkerProcess;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;

/** Step 2: a consumer is killed after its database commit and before its offset commit. */
final class CrashStep implements LabStep {

  private static final String TOPIC = "lab.credits";

  @Override
  public String id() {
    return "crash";
  }

  @Override
  public String title() {
    return "Crash between effect and offset commit: unguarded total 20, guarded total 10";
  }

  @Override
  public String why() {
    return "One record credits account 17 by 10. Each worker (a child JVM) commits the credit to"
        + " PostgreSQL and is killed with SIGKILL before it commits its Kafka offset, so the"
        + " restarted worker gets the record again. The naive loop applies it twice. Courier's"
        + " idempotent consumer writes the dedupe key in the same transaction as the credit, sees"
        + " the key on redelivery and only commits the offset.";
  }

  @Override
  public void run(Lab lab) throws Exception {
    try (Connection c = lab.db().connection();
        Statement s = c.createStatement()) {
      s.execute("CREATE TABLE accounts (id integer PRIMARY KEY, total numeric NOT NULL)");
    }
    lab.kafka().createTopic(TOPIC, 1);
    try (KafkaProducer<String, String> producer =
        new KafkaProducer<>(
            lab.kafka().producerConfig(), new StringSerializer(), new StringSerializer())) {
      ProducerRecord<String, String> credit = new ProducerRecord<>(TOPIC, "17", "17:10");
      credit.headers().add(CourierHeaders.ID, "credit-17-1".getBytes(StandardCharsets.UTF_8));
      producer.send(credit).get(30, TimeUnit.SECONDS);
    }
    lab.say("sent one record to " + TOPIC + ": credit account 17 by 10 (operation credit-17-1)");
    for (String mode : new String[] {"unguarded", "guarded"}) {
      reset(lab);
      WorkerProcess crashed =
          worker(lab, mode).crashAt(CrashPoints.AFTER_DB_COMMIT_BEFORE_OFFSET_COMMIT).start();
      lab.expect(
          mode + " worker killed after the DB commit, before the offset commit, exit status",
          crashed.killAtCrashPoint(Lab.TIMEOUT),
          WorkerProcess.SIGKILL_EXIT_STATUS);
      lab.expect(mode + " total after the kill (the credit was committed)", total(lab), "10");
      lab.expect(
          mode + " restarted worker handled the redelivered record, exit status",
          worker(lab, mode).start().awaitExit(Lab.TIMEOUT),
          0);
      lab.expect(
          mode + " total after the restart", total(lab), mode.equals("guarded") ? "10" : "20");
    }
  }

  private static JvmWorker worker(Lab lab, String mode) {
    return JvmWorker.of(CreditWorker.class)
        .name(mode + "-worker")
        .args(
            mode,
            lab.kafka().bootstrapServers(),
            lab.db().jdbcUrl(),
            lab.db().username(),
            lab.db().password(),
            TOPIC,
            "lab-billing-" + mode,
            "1");
  }

  private static void reset(Lab lab) throws Exception {
    try (Connection c = lab.db().connection();
        Statement s = c.createStatement()) {
      s.execute("INSERT INTO accounts VALUES (17, 0) ON CONFLICT (id) DO UPDATE SET total = 0");
    }
  }

  private static String total(Lab lab) throws Exception {
    try (Connection c = lab.db().connection();
        ResultSet rs =
            c.createStatement().executeQuery("SELECT total FROM accounts WHERE id = 17")) {
      rs.next();
      BigDecimal total = rs.getBigDecimal(1);
      return total.stripTrailingZeros().toPlainString();
    }
  }
}
