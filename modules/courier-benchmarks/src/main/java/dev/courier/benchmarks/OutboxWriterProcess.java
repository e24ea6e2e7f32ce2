package dev.courier.benchmarks;

import dev.courier.outbox.OutboxShards;
import dev.courier.outbox.OutboxWriter;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * The writer of the production-like outbox run, in a JVM of its own as an application would be:
 * {@code events} outbox events through Courier's writer. Shape {@code ticks} (the default): paced
 * at {@code perSecond} in 10 ms ticks, one transaction a tick (write time in each payload), or at
 * full speed 500 a transaction when {@code perSecond} is 0. Shapes {@code one} and {@code mix}:
 * {@code threads} connections committing one event, or 1-10 events, per transaction ({@link
 * ShapedWriter}), paced at {@code perSecond} in all or, at 0, as fast as they commit; {@code async}
 * sets {@code synchronous_commit = off} for the writer's sessions.
 *
 * <p>Arguments: {@code host port database user password perSecond events [shards] [shape] [threads]
 * [sync|async]}.
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
    long started = System.currentTimeMillis();
    String shape = args.length > 8 ? args[8] : "ticks";
    if (!shape.equals("ticks")) {
      ShapedWriter.write(
          db,
          writer,
          ShapedWriter.Shape.parse(shape),
          perSecond,
          events,
          args.length > 9 ? Integer.parseInt(args[9]) : 4,
          args.length > 10 && args[10].equals("async"));
    } else if (perSecond == 0) {
      OutboxWrites.writeEvents(db, writer, events);
    } else {
      OutboxWrites.writePaced(db, writer, events, perSecond);
    }
    System.out.println(DONE + " " + started + " " + System.currentTimeMillis());
  }

  /** From the writer's output: when it began writing and when its last commit returned (ms). */
  static long[] span(String output) {
    int at = output.indexOf(DONE);
    if (at < 0) {
      throw new IllegalStateException("the writer did not finish: " + output);
    }
    String[] f = output.substring(at + DONE.length()).trim().split("\\s+");
    return new long[] {Long.parseLong(f[0]), Long.parseLong(f[1])};
  }
}
