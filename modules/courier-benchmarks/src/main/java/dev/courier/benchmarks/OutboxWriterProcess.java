package dev.courier.benchmarks;

import dev.courier.outbox.OutboxShards;
import dev.courier.outbox.OutboxWriter;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * The writer of the production-like outbox run, in a JVM of its own as an application would be:
 * {@code events} outbox events through Courier's writer, paced at {@code perSecond} (10 ms ticks,
 * write time in each payload), or at full speed 500 a transaction when {@code perSecond} is 0.
 *
 * <p>Arguments: {@code host port database user password perSecond events [shards]}.
 */
public final class OutboxWriterProcess {

  /** Printed once the last event is committed. */
  static final String DONE = "writer: all events committed";

  private OutboxWriterProcess() {}

  public static void main(String[] args) throws Exception {
    PGSimpleDataSource db = new PGSimpleDataSource();
    db.setServerNames(new String[] {args[0]});
    db.setPortNumbers(new int[] {Integer.parseInt(args[1])});
    db.setDatabaseName(args[2]);
    db.setUser(args[3]);
    db.setPassword(args[4]);
    int perSecond = Integer.parseInt(args[5]);
    int events = Integer.parseInt(args[6]);
    OutboxWriter writer =
        OutboxWriter.builder()
            .shards(OutboxShards.of(args.length > 7 ? Integer.parseInt(args[7]) : 1))
            .build();
    if (perSecond == 0) {
      OutboxBaselines.writeEvents(db, writer, events);
    } else {
      OutboxBaselines.writePaced(db, writer, events, perSecond);
    }
    System.out.println(DONE);
  }
}
