package dev.courier.core.internal;

import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.common.KafkaFuture;

/** Waits for an Admin result with a bound, turning Kafka's checked failures into one exception. */
public final class KafkaFutures {

  private KafkaFutures() {}

  /**
   * The future's value.
   *
   * @throws IllegalStateException with the broker's message when it failed, or when it did not
   *     answer within {@code timeout} (the interrupt flag is kept)
   */
  public static <T> T await(KafkaFuture<T> future, Duration timeout) {
    try {
      return future.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting for Kafka", e);
    } catch (ExecutionException e) {
      throw new IllegalStateException(String.valueOf(e.getCause().getMessage()), e.getCause());
    } catch (TimeoutException e) {
      throw new IllegalStateException("Kafka did not answer within " + timeout, e);
    }
  }
}
