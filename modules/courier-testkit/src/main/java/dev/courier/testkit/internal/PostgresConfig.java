package dev.courier.testkit.internal;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The server settings both backends run PostgreSQL with, so they behave the same. */
public final class PostgresConfig {

  private PostgresConfig() {}

  public static Map<String, String> serverSettings() {
    Map<String, String> settings = new LinkedHashMap<>();
    // Logical decoding for CDC (Debezium's pgoutput) and room for a slot per test class.
    settings.put("wal_level", "logical");
    settings.put("max_wal_senders", "20");
    settings.put("max_replication_slots", "20");
    settings.put("max_connections", "200");
    // Tests do not survive power loss anyway; fsync off only skips disk flushes.
    settings.put("fsync", "off");
    settings.put("full_page_writes", "off");
    // synchronous_commit stays on: with it off the walsender ships only flushed WAL and CDC lags.
    settings.put("synchronous_commit", "on");
    return settings;
  }

  /** The settings as {@code postgres -c key=value} arguments for a container command. */
  static List<String> commandArguments() {
    List<String> args = new java.util.ArrayList<>();
    args.add("postgres");
    serverSettings()
        .forEach(
            (k, v) -> {
              args.add("-c");
              args.add(k + "=" + v);
            });
    return args;
  }
}
