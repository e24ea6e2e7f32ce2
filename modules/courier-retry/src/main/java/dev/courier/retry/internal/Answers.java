package dev.courier.retry.internal;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.producer.RecordMetadata;

/** What Kafka answered to sends key order waits for: dead letters of heads and of parked chains. */
final class Answers {

  private Answers() {}

  /**
   * Whether Kafka answered every one of these sends (delivered or not) within {@code max}: what is
   * written after them must not be read by anyone before they are.
   */
  static boolean answered(List<Future<RecordMetadata>> sends, Duration max) {
    long deadline = System.nanoTime() + max.toNanos();
    boolean interrupted = false;
    try {
      for (Future<RecordMetadata> f : sends) {
        while (!f.isDone()) {
          long left = deadline - System.nanoTime();
          if (left <= 0) {
            return false;
          }
          try {
            f.get(left, TimeUnit.NANOSECONDS);
          } catch (ExecutionException e) {
            break; // answered: a refusal is settled with the forwards
          } catch (TimeoutException e) {
            return false;
          } catch (InterruptedException e) {
            interrupted = true;
          }
        }
      }
      return true;
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  static Throwable refusal(Future<RecordMetadata> send) {
    try {
      send.get();
      return null;
    } catch (ExecutionException e) {
      return e.getCause();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return e;
    }
  }
}
