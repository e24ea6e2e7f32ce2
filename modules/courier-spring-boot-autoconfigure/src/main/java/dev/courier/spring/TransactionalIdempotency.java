package dev.courier.spring;

import dev.courier.idempotency.IdempotentHandler;
import dev.courier.idempotency.Outcome;
import dev.courier.spring.internal.SpringConnections;
import io.micrometer.core.instrument.MeterRegistry;
import java.sql.Connection;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import javax.sql.DataSource;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Courier's idempotent store for Spring listeners ({@code @KafkaListener} methods and the like):
 * records the record's operation key and runs the effect in one Spring-managed transaction, so a
 * redelivered record changes nothing and a key reused with another payload is refused ({@code
 * IdempotencyKeyReusedException}, permanent: do not retry it).
 *
 * <pre>{@code
 * @KafkaListener(topics = "shop.order", groupId = "billing")
 * void on(ConsumerRecord<String, String> record) throws Exception {
 *   idempotency.once("billing", record, () -> jdbc.update("UPDATE accounts ...", ...));
 * }
 * }</pre>
 *
 * <p>The effect runs on the transaction's connection: a {@code JdbcTemplate} (or anything else on
 * Spring's DataSource) inside it joins the same transaction. Inside a {@code @Transactional} method
 * the key commits with whatever else that method does; outside one a transaction is opened for the
 * call. Acknowledge the record only after this returns (Spring Kafka's default: the container
 * commits after the listener returns).
 */
public final class TransactionalIdempotency {

  private final DataSource dataSource;
  private final TransactionTemplate transactions;
  private final Map<String, Object> settings;
  private final MeterRegistry registry;
  private final Map<String, IdempotentHandler<Object, Object>> handlers = new ConcurrentHashMap<>();

  public TransactionalIdempotency(
      DataSource dataSource,
      PlatformTransactionManager transactionManager,
      Map<String, ?> settings,
      MeterRegistry registry) {
    this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
    this.transactions = new TransactionTemplate(transactionManager);
    this.settings = Map.copyOf(settings);
    this.registry = Objects.requireNonNull(registry, "registry");
  }

  /** The listener's effect: runs once per operation key, in the store's transaction. */
  @FunctionalInterface
  public interface Effect {
    void run() throws Exception;
  }

  /**
   * Applies the effect once per operation key of the consumer: records the key, then runs the
   * effect, in the current Spring transaction or in one opened for the call. Whatever the effect
   * throws, checked exceptions included, rolls the key back with it (and marks a surrounding
   * transaction rollback-only, where Spring's default rule would commit on a checked exception),
   * and comes out as it was thrown.
   *
   * @param consumerName the name keys are recorded under ({@code idempotency.consumer.name}); one
   *     per listener that applies effects of its own
   * @return {@code APPLIED} (the effect ran) or {@code DUPLICATE} (it had run; it did not now)
   */
  public Outcome once(String consumerName, ConsumerRecord<?, ?> record, Effect effect)
      throws Exception {
    Objects.requireNonNull(effect, "effect");
    IdempotentHandler<Object, Object> handler = handler(consumerName);
    @SuppressWarnings("unchecked")
    ConsumerRecord<Object, Object> any = (ConsumerRecord<Object, Object>) record;
    try {
      // REQUIRED: joins the listener's transaction, or opens one; a failure inside a joined
      // transaction marks it rollback-only.
      return transactions.execute(status -> apply(handler, any, effect));
    } catch (EffectFailed e) {
      throw e.checked;
    }
  }

  private Outcome apply(
      IdempotentHandler<Object, Object> handler,
      ConsumerRecord<Object, Object> record,
      Effect effect) {
    Connection connection = SpringConnections.transactional(dataSource, "the idempotent store");
    try {
      Outcome outcome = handler.handle(connection, record);
      if (outcome == Outcome.APPLIED) {
        effect.run(); // after the key, in the same transaction: a failure rolls both back
      }
      return outcome;
    } catch (RuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw new EffectFailed(e);
    } finally {
      SpringConnections.release(connection, dataSource);
    }
  }

  /** Carries a checked exception through the transaction template, which rolls back on it. */
  private static final class EffectFailed extends RuntimeException {
    private final Exception checked;

    EffectFailed(Exception checked) {
      super(checked);
      this.checked = checked;
    }
  }

  private IdempotentHandler<Object, Object> handler(String consumerName) {
    Objects.requireNonNull(consumerName, "consumerName");
    return handlers.computeIfAbsent(
        consumerName,
        name ->
            IdempotentHandler.<Object, Object>builder()
                .dataSource(dataSource)
                .config(settings)
                .consumerName(name)
                .meterRegistry(registry)
                .effect((connection, record) -> {}) // the caller's effect runs after the key
                .build());
  }
}
