package dev.courier.retry;

import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/** Runs a consumer on its own thread until a condition on its progress holds, then stops it. */
final class Running {

  private Running() {}

  static RetryProgress until(
      RetryingConsumer<?, ?> consumer, Predicate<RetryProgress> done, Duration timeout)
      throws Exception {
    ExecutorService thread = Executors.newSingleThreadExecutor();
    Future<?> loop = thread.submit(consumer::run);
    try {
      await()
          .atMost(timeout)
          .pollInterval(Duration.ofMillis(50))
          .until(
              () -> {
                if (loop.isDone()) {
                  loop.get(); // surfaces the loop's failure
                }
                return done.test(consumer.progress());
              });
      return consumer.progress();
    } finally {
      consumer.close();
      loop.get(30, TimeUnit.SECONDS);
      thread.shutdown();
    }
  }
}
