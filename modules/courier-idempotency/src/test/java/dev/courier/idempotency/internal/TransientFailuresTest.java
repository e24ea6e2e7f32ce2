package dev.courier.idempotency.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.courier.idempotency.RecordEffectException;
import java.net.ConnectException;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import org.junit.jupiter.api.Test;

class TransientFailuresTest {

  @Test
  void aLostOrRefusedConnectionAnywhereInTheChainIsTransient() {
    assertThat(TransientFailures.isTransient(wrapped(new SQLException("I/O error", "08006"))))
        .isTrue();
    assertThat(TransientFailures.isTransient(wrapped(new SQLException("refused", "08001"))))
        .isTrue();
    assertThat(TransientFailures.isTransient(wrapped(new SQLTransientConnectionException("pool"))))
        .isTrue();
    assertThat(TransientFailures.isTransient(wrapped(new ConnectException("refused")))).isTrue();
  }

  @Test
  void deadlocksSerializationFailuresAndShutdownsAreTransient() {
    assertThat(TransientFailures.isTransient(new SQLException("deadlock", "40P01"))).isTrue();
    assertThat(TransientFailures.isTransient(new SQLException("serialization", "40001"))).isTrue();
    assertThat(TransientFailures.isTransient(new SQLException("too many clients", "53300")))
        .isTrue();
    assertThat(TransientFailures.isTransient(new SQLException("admin shutdown", "57P01"))).isTrue();
  }

  @Test
  void aBugOrAMissingTableIsNot() {
    assertThat(TransientFailures.isTransient(wrapped(new SQLException("no such table", "42P01"))))
        .isFalse();
    assertThat(TransientFailures.isTransient(new SQLException("unique", "23505"))).isFalse();
    assertThat(TransientFailures.isTransient(new IllegalStateException("bug"))).isFalse();
    assertThat(TransientFailures.isTransient(new SQLException("no state"))).isFalse();
  }

  private static RuntimeException wrapped(Exception cause) {
    return new RecordEffectException("effect failed", new IllegalStateException(cause));
  }
}
