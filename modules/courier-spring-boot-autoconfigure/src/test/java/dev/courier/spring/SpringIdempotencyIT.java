package dev.courier.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.courier.core.CourierHeaders;
import dev.courier.idempotency.IdempotencyKeyReusedException;
import dev.courier.idempotency.Outcome;
import dev.courier.testkit.CourierInfraTest;
import dev.courier.testkit.TestDatabase;
import dev.courier.testkit.UniqueNames;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import javax.sql.DataSource;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.UnexpectedRollbackException;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The idempotent store as a Spring listener uses it, on real PostgreSQL: the key and a JdbcTemplate
 * effect commit together in Spring's transaction, a redelivery changes nothing, a failed effect
 * leaves no key behind, and a key reused with another payload is refused.
 */
@CourierInfraTest
class SpringIdempotencyIT {

  private final TestDatabase db;
  private long offset;

  SpringIdempotencyIT(TestDatabase db) {
    this.db = db;
  }

  @Test
  void theKeyAndTheListenersEffectCommitInOneSpringTransaction() {
    String consumer = UniqueNames.group("billing");
    Contexts.application()
        .withPropertyValues(
            "spring.datasource.url=" + db.jdbcUrl(),
            "spring.datasource.username=" + db.username(),
            "spring.datasource.password=" + db.password())
        .run(
            context -> {
              JdbcTemplate jdbc = new JdbcTemplate(context.getBean(DataSource.class));
              jdbc.execute("CREATE TABLE IF NOT EXISTS balances (account text, amount int)");
              jdbc.update("DELETE FROM balances WHERE account = ?", consumer);
              TransactionalIdempotency store = context.getBean(TransactionalIdempotency.class);
              TransactionTemplate tx =
                  new TransactionTemplate(context.getBean(PlatformTransactionManager.class));
              TransactionalIdempotency.Effect charge =
                  () -> jdbc.update("INSERT INTO balances VALUES (?, 10)", consumer);

              // Inside a @Transactional listener: the key commits with the listener's work.
              Outcome first =
                  tx.execute(
                      status -> once(store, consumer, record("op-1", "{\"amount\":10}"), charge));
              assertThat(first).isEqualTo(Outcome.APPLIED);
              // A redelivery, without a transaction of its own: the store opens one.
              assertThat(store.once(consumer, record("op-1", "{\"amount\":10}"), charge))
                  .isEqualTo(Outcome.DUPLICATE);
              // The listener fails after the store returned: key and effect roll back together.
              assertThatThrownBy(
                      () ->
                          tx.executeWithoutResult(
                              status -> {
                                once(store, consumer, record("op-2", "{\"amount\":10}"), charge);
                                throw new IllegalStateException("downstream refused");
                              }))
                  .hasMessage("downstream refused");
              // A checked exception from the effect, swallowed by the listener: Spring's default
              // rule would commit on it; the store marked the transaction rollback-only instead.
              assertThatThrownBy(
                      () ->
                          tx.executeWithoutResult(
                              status -> {
                                try {
                                  store.once(
                                      consumer,
                                      record("op-3", "{\"amount\":10}"),
                                      () -> {
                                        charge.run();
                                        throw new IOException("gateway timed out");
                                      });
                                } catch (IOException swallowed) {
                                  // the listener goes on as if nothing happened
                                } catch (Exception e) {
                                  throw new IllegalStateException(e);
                                }
                              }))
                  .isInstanceOf(UnexpectedRollbackException.class);
              assertThat(store.once(consumer, record("op-2", "{\"amount\":10}"), charge))
                  .as("the retry applies it: nothing of the failed attempt stayed")
                  .isEqualTo(Outcome.APPLIED);
              assertThatThrownBy(
                      () -> store.once(consumer, record("op-2", "{\"amount\":99}"), charge))
                  .isInstanceOf(IdempotencyKeyReusedException.class);

              assertThat(store.once(consumer, record("op-3", "{\"amount\":10}"), charge))
                  .as("nothing of op-3 committed: its retry applies it")
                  .isEqualTo(Outcome.APPLIED);
              assertThat(
                      jdbc.queryForObject(
                          "SELECT sum(amount) FROM balances WHERE account = ?",
                          Integer.class,
                          consumer))
                  .isEqualTo(30);
            });
  }

  private static Outcome once(
      TransactionalIdempotency store,
      String consumer,
      ConsumerRecord<String, String> record,
      TransactionalIdempotency.Effect effect) {
    try {
      return store.once(consumer, record, effect);
    } catch (RuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  private ConsumerRecord<String, String> record(String operationKey, String value) {
    RecordHeaders headers = new RecordHeaders();
    headers.add(CourierHeaders.ID, operationKey.getBytes(StandardCharsets.UTF_8));
    return new ConsumerRecord<>(
        "payments",
        0,
        offset++,
        0L,
        TimestampType.CREATE_TIME,
        0,
        0,
        "acc-1",
        value,
        headers,
        Optional.empty());
  }
}
