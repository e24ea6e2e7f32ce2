package dev.courier.backpressure;

import dev.courier.backpressure.internal.AgeBook;
import dev.courier.backpressure.internal.MetricSums;
import dev.courier.backpressure.internal.OffsetCollector;
import dev.courier.backpressure.internal.OldestRecordReader;
import java.time.Duration;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;

/**
 * The monitor's Kafka side: its Admin client, the offset collector on it and, unless ages are
 * estimated, the reader of oldest records with its cache. Built together, once Kafka's clients can
 * be built (a name in {@code bootstrap.servers} resolves), and closed together.
 */
final class MonitorClients implements AutoCloseable {

  final Admin admin;
  final OffsetCollector collector;
  final OldestRecordReader reader;
  final AgeBook ages;

  private MonitorClients(
      Admin admin, OffsetCollector collector, OldestRecordReader reader, AgeBook ages) {
    this.admin = admin;
    this.collector = collector;
    this.reader = reader;
    this.ages = ages;
  }

  /**
   * @throws org.apache.kafka.common.config.ConfigException when Kafka refuses a client setting
   */
  static MonitorClients create(MonitorConfig config) {
    Map<String, Object> client = config.clients().admin();
    client.putIfAbsent("client.id", "courier-monitor-admin");
    // Admin describes a classic group by trying the KIP-848 API first and retrying with the
    // classic one after retry.backoff.ms: at the default 100 ms that wait dominated every tick.
    client.putIfAbsent("retry.backoff.ms", 10);
    Admin admin = Admin.create(client);
    try {
      // A partition without a leader is waited for this long, then reported UNKNOWN: it bounds
      // the tick, it does not fail it.
      Duration timeout = max(Duration.ofSeconds(5), config.tickInterval().multipliedBy(2));
      OffsetCollector collector =
          new OffsetCollector(
              admin,
              config.groups(),
              config.includePattern(),
              config.excludePattern(),
              config.uncommittedFromEarliest(),
              timeout);
      if (config.estimateAge()) {
        return new MonitorClients(admin, collector, null, null);
      }
      OldestRecordReader reader = new OldestRecordReader(config.clients().consumer());
      AgeBook ages = new AgeBook(reader, config.ageCacheTtl(), config.ageReadTimeout());
      return new MonitorClients(admin, collector, reader, ages);
    } catch (RuntimeException e) {
      admin.close(Duration.ZERO);
      throw e;
    }
  }

  /** Admin requests and age-reader fetches sent so far, to count a tick's by difference. */
  long adminRequests() {
    return MetricSums.requestTotal(admin.metrics(), "admin-client-metrics");
  }

  long fetchRequests() {
    return reader == null ? 0 : reader.fetchRequests();
  }

  private static Duration max(Duration a, Duration b) {
    return a.compareTo(b) >= 0 ? a : b;
  }

  @Override
  public void close() {
    if (reader != null) {
      reader.close();
    }
    admin.close(Duration.ofSeconds(5));
  }
}
