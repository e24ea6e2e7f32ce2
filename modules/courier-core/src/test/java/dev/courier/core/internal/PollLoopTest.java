package dev.courier.core.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.junit.jupiter.api.Test;

/** The loop's life cycle only; Kafka's own in-memory MockConsumer stands in for a broker. */
class PollLoopTest {

  private final MockConsumer<String, String> consumer = new MockConsumer<>("earliest");
  private final AtomicInteger closes = new AtomicInteger();
  private final PollLoop loop = new PollLoop(consumer, closes::incrementAndGet);

  @Test
  void closingALoopThatNeverRanClosesItsResourcesOnceAndRunThenReturnsAtOnce() {
    loop.close();
    loop.close();
    assertThat(closes).hasValue(1);
    AtomicInteger steps = new AtomicInteger();
    loop.run(() -> steps.incrementAndGet(), () -> false, steps::incrementAndGet);
    assertThat(steps).hasValue(0);
    assertThat(closes).hasValue(1);
  }

  @Test
  void aLoopRunsOnce() {
    loop.run(() -> {}, () -> true, () -> {});
    assertThatThrownBy(() -> loop.run(() -> {}, () -> false, () -> {}))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("already ran");
  }

  @Test
  void closeFromAnotherThreadWakesTheLoopWhichClosesOnItsOwnThread() throws Exception {
    CountDownLatch polling = new CountDownLatch(1);
    ExecutorService thread = Executors.newSingleThreadExecutor();
    try {
      Future<?> running =
          thread.submit(
              () ->
                  loop.run(
                      () -> {},
                      () -> false,
                      () -> {
                        polling.countDown();
                        consumer.poll(Duration.ofSeconds(30));
                      }));
      assertThat(polling.await(10, TimeUnit.SECONDS)).isTrue();
      loop.close();
      running.get(10, TimeUnit.SECONDS);
      assertThat(closes).hasValue(1);
      assertThat(loop.stopping()).isTrue();
    } finally {
      thread.shutdownNow();
    }
  }

  @Test
  void aFailingStepClosesTheResourcesAndPropagates() {
    assertThatThrownBy(
            () ->
                loop.run(
                    () -> {},
                    () -> false,
                    () -> {
                      throw new IllegalStateException("boom");
                    }))
        .hasMessage("boom");
    assertThat(closes).hasValue(1);
  }

  @Test
  void runsUntilDone() {
    AtomicInteger steps = new AtomicInteger();
    loop.run(() -> {}, () -> steps.get() == 3, steps::incrementAndGet);
    assertThat(steps).hasValue(3);
    assertThat(closes).hasValue(1);
  }
}
