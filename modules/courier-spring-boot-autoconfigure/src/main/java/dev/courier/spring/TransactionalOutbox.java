package dev.courier.spring;

import dev.courier.outbox.OutboxEvent;
import dev.courier.outbox.OutboxWriter;
import dev.courier.spring.internal.SpringConnections;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Objects;
import javax.sql.DataSource;
import org.springframework.jdbc.support.SQLExceptionTranslator;
import org.springframework.jdbc.support.SQLStateSQLExceptionTranslator;

/**
 * The outbox in a Spring application: writes events on the connection of the caller's Spring
 * transaction ({@code @Transactional}), so they commit with the business change or not at all.
 * Called with no transaction active it refuses: an event that commits alone, before or without the
 * change it announces, is the bug an outbox exists to prevent.
 *
 * <p>SQL errors come out as Spring's {@code DataAccessException}s, like JdbcTemplate's, so the
 * caller's transaction rolls back by Spring's default rules.
 */
public final class TransactionalOutbox {

  private final OutboxWriter writer;
  private final DataSource dataSource;
  private final SQLExceptionTranslator translator = new SQLStateSQLExceptionTranslator();

  public TransactionalOutbox(OutboxWriter writer, DataSource dataSource) {
    this.writer = Objects.requireNonNull(writer, "writer");
    this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
  }

  /** Writes one event in the caller's transaction. */
  public void write(OutboxEvent event) {
    writeAll(List.of(event));
  }

  /** Writes events in the caller's transaction, in order. */
  public void writeAll(List<OutboxEvent> events) {
    Connection connection = SpringConnections.transactional(dataSource, "the outbox");
    try {
      writer.writeAll(connection, events);
    } catch (SQLException e) {
      throw Objects.requireNonNull(translator.translate("outbox write", null, e));
    } finally {
      SpringConnections.release(connection, dataSource);
    }
  }
}
