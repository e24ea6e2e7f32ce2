package dev.courier.benchmarks;

import dev.courier.outbox.OutboxRelayConfig;
import dev.courier.outbox.internal.EngineProperties;
import dev.courier.testkit.internal.PgOutputDecoder;
import io.debezium.embedded.Connect;
import io.debezium.engine.DebeziumEngine;
import io.debezium.engine.RecordChangeEvent;
import io.debezium.engine.format.ChangeEventFormat;
import java.nio.ByteBuffer;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.source.SourceRecord;
import org.postgresql.PGProperty;
import org.postgresql.replication.LogSequenceNumber;
import org.postgresql.replication.PGReplicationStream;

/**
 * A capture baseline in a JVM of its own, so its CPU time can be read from {@code /proc} as the
 * relay's is: {@code pgoutput}, baseline (a), the slot's messages through pgjdbc's replication
 * stream, decoded and nothing else; {@code debezium}, baseline (b), Debezium's embedded engine on
 * the relay's settings with a handler that only counts. Each prints, per second, the events it saw
 * and the worst delay from their commit ({@link Arrivals#LINE}), and {@link #STREAMING} once it
 * reads.
 *
 * <p>Arguments: {@code pgoutput|debezium key=value...} (the relay's settings: database, slot and
 * publication names, offset topic).
 */
public final class CaptureProcess {

  static final String STREAMING = "capture: streaming";

  private CaptureProcess() {}

  public static void main(String[] args) throws Exception {
    Map<String, String> settings = new HashMap<>();
    for (int i = 1; i < args.length; i++) {
      int eq = args[i].indexOf('=');
      settings.put(args[i].substring(0, eq), args[i].substring(eq + 1));
    }
    OutboxRelayConfig config = new OutboxRelayConfig(settings);
    Arrivals arrivals = new Arrivals();
    Thread printer = new Thread(() -> print(arrivals), "arrivals");
    printer.setDaemon(true);
    printer.start();
    if (args[0].equals("pgoutput")) {
      pgoutput(config, arrivals);
    } else {
      debezium(config, arrivals);
    }
  }

  private static void print(Arrivals arrivals) {
    while (true) {
      long now = System.currentTimeMillis();
      arrivals.takeLines(now / 1000).forEach(System.out::println);
      System.out.flush();
      try {
        Thread.sleep(1000 - now % 1000 + 5); // a printer's cadence, not a test wait
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  /** (a): every change of the slot decoded; the delay of a transaction's rows from its commit. */
  private static void pgoutput(OutboxRelayConfig config, Arrivals arrivals) throws Exception {
    String url =
        "jdbc:postgresql://"
            + config.getString(OutboxRelayConfig.DATABASE_HOSTNAME)
            + ":"
            + config.getInt(OutboxRelayConfig.DATABASE_PORT)
            + "/"
            + config.getString(OutboxRelayConfig.DATABASE_DBNAME);
    String user = config.getString(OutboxRelayConfig.DATABASE_USER);
    String password = config.getPassword(OutboxRelayConfig.DATABASE_PASSWORD).value();
    String slot = config.getString(OutboxRelayConfig.SLOT_NAME);
    String publication = config.getString(OutboxRelayConfig.PUBLICATION_NAME);
    // A second start (after a backlog was written) finds both from its first.
    try (Connection c = DriverManager.getConnection(url, user, password);
        Statement s = c.createStatement()) {
      s.execute(
          "DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_publication WHERE pubname = '"
              + publication
              + "') THEN CREATE PUBLICATION "
              + publication
              + " FOR TABLE "
              + EngineProperties.OUTBOX_TABLE
              + "; END IF; END $$");
      s.execute(
          "SELECT pg_create_logical_replication_slot('"
              + slot
              + "', 'pgoutput') WHERE NOT EXISTS (SELECT 1 FROM pg_replication_slots WHERE"
              + " slot_name = '"
              + slot
              + "')");
    }
    Properties props = new Properties();
    PGProperty.USER.set(props, user);
    PGProperty.PASSWORD.set(props, password);
    PGProperty.REPLICATION.set(props, "database");
    PGProperty.ASSUME_MIN_SERVER_VERSION.set(props, "10");
    PGProperty.PREFER_QUERY_MODE.set(props, "simple");
    try (Connection replication = DriverManager.getConnection(url, props)) {
      PGReplicationStream stream = PgoutputSlots.resume(replication, slot, publication);
      System.out.println(STREAMING);
      PgOutputDecoder decoder = new PgOutputDecoder();
      long rows = 0;
      while (true) {
        ByteBuffer message = stream.read();
        byte[] bytes = new byte[message.remaining()];
        message.get(bytes);
        long committed = PgOutputDecoder.commitMillis(bytes);
        if (committed >= 0) {
          long now = System.currentTimeMillis();
          arrivals.record(now, rows, now - committed);
          rows = 0;
        } else if (decoder
            .decode(bytes)
            .filter(change -> change.operation().equals("INSERT"))
            .isPresent()) {
          rows++;
        }
        LogSequenceNumber at = stream.getLastReceiveLSN();
        stream.setAppliedLSN(at);
        stream.setFlushedLSN(at);
      }
    }
  }

  /** (b): Debezium's engine as the relay configures it; the handler counts and marks. */
  private static void debezium(OutboxRelayConfig config, Arrivals arrivals) throws Exception {
    CountDownLatch ended = new CountDownLatch(1);
    DebeziumEngine<RecordChangeEvent<SourceRecord>> engine =
        DebeziumEngine.create(ChangeEventFormat.of(Connect.class))
            .using(EngineProperties.of(config))
            .using(
                new DebeziumEngine.ConnectorCallback() {
                  @Override
                  public void pollingStarted() {
                    System.out.println(STREAMING);
                  }
                })
            .using(
                (success, message, error) -> {
                  System.out.println("capture: engine stopped: " + message + " " + error);
                  ended.countDown();
                })
            .notifying(
                (records, committer) -> {
                  long now = System.currentTimeMillis();
                  long events = 0;
                  long oldest = now;
                  for (RecordChangeEvent<SourceRecord> r : records) {
                    // Heartbeats (a struct without "op") come once a run outlasts the interval.
                    if (r.record().value() instanceof Struct s
                        && s.schema().field("op") != null
                        && "c".equals(s.getString("op"))) {
                      events++;
                      oldest = Math.min(oldest, s.getStruct("source").getInt64("ts_ms"));
                    }
                    committer.markProcessed(r);
                  }
                  committer.markBatchFinished();
                  if (events > 0) {
                    arrivals.record(now, events, now - oldest);
                  }
                })
            .build();
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  try {
                    engine.close();
                  } catch (Exception e) {
                    // exiting anyway
                  }
                }));
    engine.run();
    ended.await();
  }
}
