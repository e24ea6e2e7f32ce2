package dev.courier.testkit.internal;

import dev.courier.testkit.LogicalChange;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Decodes the messages of PostgreSQL's {@code pgoutput} plugin (protocol version 1) far enough to
 * turn Relation and Insert/Update/Delete messages into {@link LogicalChange}s. Begin, Commit and
 * the other message kinds are recognised and skipped. Stateful: relations precede their rows.
 */
public final class PgOutputDecoder {

  private final Map<Integer, Relation> relations = new HashMap<>();

  private record Relation(String table, List<String> columns) {}

  /** Microseconds from the Unix epoch to PostgreSQL's, 2000-01-01. */
  private static final long POSTGRES_EPOCH_MICROS = 946_684_800_000_000L;

  /**
   * The commit time of a Commit message, in epoch milliseconds; -1 for any other message. Read
   * apart from {@link #decode} because it needs no relation and allocates nothing.
   */
  public static long commitMillis(byte[] message) {
    if (message.length < 26 || message[0] != 'C') {
      return -1;
    }
    // 'C', flags (1 byte), commit LSN (8), end LSN (8), then the commit time in microseconds.
    long micros = ByteBuffer.wrap(message, 18, 8).getLong();
    return (micros + POSTGRES_EPOCH_MICROS) / 1000;
  }

  /** Decodes one message; a change comes out only for row messages. */
  public Optional<LogicalChange> decode(byte[] message) {
    ByteBuffer buf = ByteBuffer.wrap(message);
    char kind = (char) buf.get();
    switch (kind) {
      case 'R':
        readRelation(buf);
        return Optional.empty();
      case 'I':
        return Optional.of(readRow(buf, "INSERT"));
      case 'U':
        return Optional.of(readRow(buf, "UPDATE"));
      case 'D':
        return Optional.of(readRow(buf, "DELETE"));
      default:
        return Optional.empty();
    }
  }

  private void readRelation(ByteBuffer buf) {
    int oid = buf.getInt();
    String namespace = readString(buf);
    String name = readString(buf);
    buf.get(); // replica identity setting
    int count = buf.getShort();
    List<String> columns = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      buf.get(); // flags (part of the key)
      columns.add(readString(buf));
      buf.getInt(); // type oid
      buf.getInt(); // type modifier
    }
    relations.put(oid, new Relation(namespace + "." + name, columns));
  }

  private LogicalChange readRow(ByteBuffer buf, String operation) {
    int oid = buf.getInt();
    Relation relation = relations.get(oid);
    if (relation == null) {
      throw new IllegalStateException("row for relation " + oid + " before its Relation message");
    }
    char tuple = (char) buf.get();
    if (tuple == 'K' || tuple == 'O') {
      // UPDATE/DELETE with an old tuple: the new tuple (UPDATE) follows; DELETE ends here.
      Map<String, String> old = readTuple(buf, relation);
      if (operation.equals("DELETE")) {
        return new LogicalChange(relation.table(), operation, old);
      }
      tuple = (char) buf.get();
    }
    if (tuple != 'N') {
      throw new IllegalStateException("unexpected tuple marker '" + tuple + "' in " + operation);
    }
    return new LogicalChange(relation.table(), operation, readTuple(buf, relation));
  }

  private static Map<String, String> readTuple(ByteBuffer buf, Relation relation) {
    int count = buf.getShort();
    Map<String, String> values = new LinkedHashMap<>();
    for (int i = 0; i < count; i++) {
      String column = i < relation.columns().size() ? relation.columns().get(i) : "col" + i;
      char kind = (char) buf.get();
      if (kind == 't') {
        byte[] value = new byte[buf.getInt()];
        buf.get(value);
        values.put(column, new String(value, StandardCharsets.UTF_8));
      } else {
        // 'n' is SQL NULL; 'u' is an unchanged TOASTed value that was not sent.
        values.put(column, null);
      }
    }
    return values;
  }

  private static String readString(ByteBuffer buf) {
    int start = buf.position();
    while (buf.get() != 0) {
      // advance to the terminating zero byte
    }
    byte[] bytes = new byte[buf.position() - start - 1];
    buf.get(start, bytes);
    return new String(bytes, StandardCharsets.UTF_8);
  }
}
