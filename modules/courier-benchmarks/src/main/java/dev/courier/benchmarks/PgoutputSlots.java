package dev.courier.benchmarks;

import dev.courier.outbox.OutboxRelayConfig;
import dev.courier.testkit.TestDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.postgresql.PGConnection;
import org.postgresql.replication.PGReplicationStream;

/** The logical slots and publications of the outbox runs: made, resumed and dropped after a run. */
final class PgoutputSlots {

  private PgoutputSlots() {}

  /** A new logical slot on pgoutput, and its stream of the publication's changes. */
  static PGReplicationStream stream(Connection replication, String slot, String publication)
      throws java.sql.SQLException {
    PGConnection pg = replication.unwrap(PGConnection.class);
    pg.getReplicationAPI()
        .createReplicationSlot()
        .logical()
        .withSlotName(slot)
        .withOutputPlugin("pgoutput")
        .make();
    return resume(replication, slot, publication);
  }

  /** The pgoutput stream of an existing {@code slot}, from where it was last confirmed. */
  static PGReplicationStream resume(Connection replication, String slot, String publication)
      throws java.sql.SQLException {
    return replication
        .unwrap(PGConnection.class)
        .getReplicationAPI()
        .replicationStream()
        .logical()
        .withSlotName(slot)
        .withSlotOption("proto_version", 1)
        .withSlotOption("publication_names", publication)
        .withStatusInterval(1, TimeUnit.SECONDS)
        .start();
  }

  static void dropSlot(TestDatabase db, Map<String, String> settings) throws Exception {
    dropSlot(
        db,
        settings.get(OutboxRelayConfig.SLOT_NAME),
        settings.get(OutboxRelayConfig.PUBLICATION_NAME));
  }

  /** Drops a run's slot and publication, so no inactive slot holds WAL for the runs after it. */
  static void dropSlot(TestDatabase db, String slot, String publication) throws Exception {
    try (Connection c = db.connection();
        PreparedStatement state =
            c.prepareStatement("SELECT active FROM pg_replication_slots WHERE slot_name = ?");
        PreparedStatement drop = c.prepareStatement("SELECT pg_drop_replication_slot(?)");
        Statement s = c.createStatement()) {
      state.setString(1, slot);
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (true) {
        try (ResultSet rs = state.executeQuery()) {
          if (!rs.next()) {
            break; // never made, or gone
          }
          if (!rs.getBoolean(1)) {
            drop.setString(1, slot);
            drop.execute();
            break;
          }
        }
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("slot " + slot + " still active 30 s after its run");
        }
        // Polling pg_replication_slots: the walsender of a stream just closed may hold the slot a
        // moment longer, and PostgreSQL tells no one when it lets go.
        Thread.sleep(50);
      }
      s.execute("DROP PUBLICATION IF EXISTS " + publication);
    }
  }
}
