package dev.courier.testkit;

import java.util.Map;
import java.util.Objects;

/**
 * One row change decoded from PostgreSQL's logical replication stream ({@code pgoutput}).
 *
 * @param table schema-qualified table name
 * @param operation {@code INSERT}, {@code UPDATE} or {@code DELETE}
 * @param columns column name to value in PostgreSQL's text form ({@code null} for SQL NULL)
 */
public record LogicalChange(String table, String operation, Map<String, String> columns) {
  public LogicalChange {
    Objects.requireNonNull(table, "table");
    Objects.requireNonNull(operation, "operation");
    columns = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(columns));
  }
}
