package dev.courier.outbox.internal;

import dev.courier.core.ClientSettings;
import dev.courier.core.internal.BootstrapNames;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Future;
import java.util.function.Supplier;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.metrics.KafkaMetric;

/**
 * The relay's producer, built once Kafka's checks passed rather than when the relay is created:
 * Kafka's client cannot be built while no name in {@code bootstrap.servers} resolves, and a relay
 * started before its broker's name exists must wait that out like any other outage instead of
 * failing its start. {@link #open()} builds it right after the checks, so the first batch (a
 * takeover's included) does not pay for it.
 */
public final class DeferredProducer implements Producer<byte[], byte[]> {

  private final Supplier<Producer<byte[], byte[]>> factory;
  private final ClientSettings clients;
  private volatile Producer<byte[], byte[]> producer;
  private boolean closed; // guarded by this

  public DeferredProducer(Supplier<Producer<byte[], byte[]>> factory, ClientSettings clients) {
    this.factory = factory;
    this.clients = clients;
  }

  /**
   * Builds the producer if it is not built yet.
   *
   * @throws Outage when it cannot be built because no bootstrap name resolves (again)
   */
  public void open() throws Outage {
    try {
      delegate();
    } catch (KafkaException e) {
      Optional<String> unresolved = BootstrapNames.unresolved(clients);
      if (unresolved.isPresent()) {
        throw new Outage(unresolved.get(), e);
      }
      throw e;
    }
  }

  private Producer<byte[], byte[]> delegate() {
    Producer<byte[], byte[]> built = producer;
    if (built != null) {
      return built;
    }
    synchronized (this) {
      if (closed) {
        throw new IllegalStateException("the relay's producer is closed");
      }
      if (producer == null) {
        producer = factory.get();
      }
      return producer;
    }
  }

  @Override
  public Future<RecordMetadata> send(ProducerRecord<byte[], byte[]> record) {
    return delegate().send(record);
  }

  @Override
  public Future<RecordMetadata> send(ProducerRecord<byte[], byte[]> record, Callback callback) {
    return delegate().send(record, callback);
  }

  @Override
  public void flush() {
    delegate().flush();
  }

  @Override
  public List<PartitionInfo> partitionsFor(String topic) {
    return delegate().partitionsFor(topic);
  }

  @Override
  public Map<MetricName, ? extends Metric> metrics() {
    Producer<byte[], byte[]> built = producer;
    return built == null ? Map.of() : built.metrics();
  }

  @Override
  public Uuid clientInstanceId(Duration timeout) {
    return delegate().clientInstanceId(timeout);
  }

  @Override
  public void registerMetricForSubscription(KafkaMetric metric) {
    delegate().registerMetricForSubscription(metric);
  }

  @Override
  public void unregisterMetricFromSubscription(KafkaMetric metric) {
    delegate().unregisterMetricFromSubscription(metric);
  }

  @Override
  public void initTransactions() {
    delegate().initTransactions();
  }

  @Override
  public void beginTransaction() {
    delegate().beginTransaction();
  }

  @Override
  public void sendOffsetsToTransaction(
      Map<TopicPartition, OffsetAndMetadata> offsets, ConsumerGroupMetadata groupMetadata) {
    delegate().sendOffsetsToTransaction(offsets, groupMetadata);
  }

  @Override
  public void commitTransaction() {
    delegate().commitTransaction();
  }

  @Override
  public void abortTransaction() {
    delegate().abortTransaction();
  }

  @Override
  public void close() {
    close(Duration.ofMillis(Long.MAX_VALUE));
  }

  @Override
  public synchronized void close(Duration timeout) {
    closed = true;
    if (producer != null) {
      producer.close(timeout);
    }
  }
}
