package dev.courier.retry.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.courier.retry.HandlerTimeoutException;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class HandlerCallsTest {

  @Test
  void aCallReportsSuccessFailureAndErrors() {
    try (HandlerCalls calls = new HandlerCalls("t", Duration.ofSeconds(5), Clock.systemUTC())) {
      assertThat(calls.start(() -> {}).await(Duration.ofSeconds(5)))
          .hasValueSatisfying(r -> assertThat(r.succeeded()).isTrue());
      assertThat(
              calls
                  .start(
                      () -> {
                        throw new java.io.IOException("down");
                      })
                  .await(Duration.ofSeconds(5)))
          .hasValueSatisfying(
              r -> assertThat(r.failure()).containsInstanceOf(java.io.IOException.class));
      assertThat(
              calls
                  .start(
                      () -> {
                        throw new StackOverflowError("deep");
                      })
                  .await(Duration.ofSeconds(5)))
          .hasValueSatisfying(r -> assertThat(r.failure()).containsInstanceOf(Error.class));
    }
  }

  @Test
  void aStuckCallIsAbandonedAndNoOtherCallStartsUntilItEnds() throws Exception {
    CountDownLatch never = new CountDownLatch(1);
    CountDownLatch started = new CountDownLatch(1);
    try (HandlerCalls calls = new HandlerCalls("t", Duration.ofMillis(50), Clock.systemUTC())) {
      HandlerCalls.Call stuck =
          calls.start(
              () -> {
                started.countDown();
                // Ignores interrupts, as a badly written handler might.
                while (never.getCount() > 0) {
                  try {
                    never.await();
                  } catch (InterruptedException ignored) {
                    // keep waiting
                  }
                }
              });
      assertThat(started.await(5, TimeUnit.SECONDS)).isTrue();
      assertThat(stuck.await(Duration.ofMillis(100))).isEmpty();
      assertThat(stuck.expired()).isTrue();
      HandlerCalls.Result abandoned = stuck.abandon("too slow");
      assertThat(abandoned.failure()).containsInstanceOf(HandlerTimeoutException.class);
      assertThat(calls.stuck()).hasValueSatisfying(s -> assertThat(s).contains("too slow"));
      HandlerCalls.Call next = calls.start(() -> {});
      assertThat(next.await(Duration.ofMillis(200))).as("never beside the stuck call").isEmpty();
      assertThat(next.started()).isFalse();
      never.countDown();
      assertThat(next.await(Duration.ofSeconds(5)))
          .hasValueSatisfying(r -> assertThat(r.succeeded()).isTrue());
      assertThat(calls.stuck()).isEmpty();
    } finally {
      never.countDown();
    }
  }

  @Test
  void aRunsCallsGoInOrderAndACancelledRestNeverStarts() throws Exception {
    List<Integer> ran = new CopyOnWriteArrayList<>();
    CountDownLatch firstRunning = new CountDownLatch(1);
    CountDownLatch releaseFirst = new CountDownLatch(1);
    try (HandlerCalls calls = new HandlerCalls("t", Duration.ofSeconds(5), Clock.systemUTC())) {
      List<HandlerCalls.Call> run =
          calls.startAll(
              List.of(
                  () -> {
                    ran.add(1);
                    firstRunning.countDown();
                    releaseFirst.await();
                  },
                  () -> ran.add(2),
                  () -> ran.add(3)));
      assertThat(firstRunning.await(5, TimeUnit.SECONDS)).isTrue();
      assertThat(run.get(0).started()).isTrue();
      assertThat(run.get(1).started()).isFalse();
      assertThat(run.get(1).remaining())
          .as("the whole limit while waiting")
          .isEqualTo(Duration.ofSeconds(5));
      assertThat(run.get(1).expired()).isFalse();

      run.get(1).cancelFromHere();
      releaseFirst.countDown();

      assertThat(run.get(0).await(Duration.ofSeconds(5))).isPresent();
      assertThat(run.get(1).await(Duration.ofMillis(200))).as("never started").isEmpty();
      assertThat(run.get(2).started()).isFalse();
      assertThat(ran).containsExactly(1);
      assertThat(calls.start(() -> ran.add(4)).await(Duration.ofSeconds(5))).isPresent();
      assertThat(ran).containsExactly(1, 4);
    } finally {
      releaseFirst.countDown();
    }
  }

  @Test
  void aCallThatStartedIsNotCancelledByTheRestOfItsRun() throws Exception {
    CountDownLatch secondRunning = new CountDownLatch(1);
    CountDownLatch releaseSecond = new CountDownLatch(1);
    try (HandlerCalls calls = new HandlerCalls("t", Duration.ofSeconds(5), Clock.systemUTC())) {
      List<HandlerCalls.Call> run =
          calls.startAll(
              List.of(
                  () -> {},
                  () -> {
                    secondRunning.countDown();
                    releaseSecond.await();
                  },
                  () -> {}));
      assertThat(secondRunning.await(5, TimeUnit.SECONDS)).isTrue();
      run.get(1).cancelFromHere();
      releaseSecond.countDown();
      assertThat(run.get(1).started()).isTrue();
      assertThat(run.get(1).await(Duration.ofSeconds(5)))
          .hasValueSatisfying(r -> assertThat(r.succeeded()).isTrue());
      assertThat(run.get(2).started()).isFalse();
    } finally {
      releaseSecond.countDown();
    }
  }

  @Test
  void aCallStartsOnlyWhileTheMembershipLeaseHoldsAndNeverOnceCancelled() throws Exception {
    AtomicLong nanos = new AtomicLong();
    MembershipLease lease = new MembershipLease(Duration.ofSeconds(5), nanos::get);
    List<String> made = new CopyOnWriteArrayList<>();
    try (HandlerCalls calls =
        new HandlerCalls("t", Duration.ofSeconds(5), Clock.systemUTC()).gatedBy(lease)) {
      HandlerCalls.Call cancelled = calls.start(() -> made.add("cancelled"));
      cancelled.cancelFromHere(); // its partition was lost while it waited
      HandlerCalls.Call next = calls.start(() -> made.add("next"));
      assertThat(next.started()).as("no proof yet").isFalse();
      lease.proven(nanos.get());
      assertThat(next.await(Duration.ofSeconds(5))).isPresent();
      assertThat(made).containsExactly("next");
      assertThat(cancelled.started()).isFalse();
    }
  }
}
