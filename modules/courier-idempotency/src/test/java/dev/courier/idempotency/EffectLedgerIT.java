package dev.courier.idempotency;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.courier.testkit.CourierInfraTest;
import dev.courier.testkit.JvmWorker;
import dev.courier.testkit.MutableClock;
import dev.courier.testkit.TestDatabase;
import dev.courier.testkit.UniqueNames;
import dev.courier.testkit.WorkerProcess;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** External effects through the ledger, counting every call the payment provider receives. */
@CourierInfraTest
class EffectLedgerIT {

  private final TestDatabase db;
  private PaymentProvider provider;

  EffectLedgerIT(TestDatabase db) {
    this.db = db;
  }

  @BeforeEach
  void provider() throws Exception {
    provider = new PaymentProvider(db.dataSource());
  }

  @Test
  void deadWorkersLeaseIsTakenOverAndItsLateCompletionRefused() throws Exception {
    String key = UniqueNames.slot("payment");
    WorkerProcess dead =
        JvmWorker.of(LedgerWorker.class)
            .args(db.jdbcUrl(), db.username(), db.password(), key, "3000")
            .crashAt(EffectLedger.AFTER_EXTERNAL_CALL_BEFORE_COMPLETE)
            .start();
    dead.killAtCrashPoint(Duration.ofSeconds(60));
    UUID deadToken = token(dead.output());
    assertThat(provider.calls(key)).isEqualTo(1);

    EffectLedger ledger =
        EffectLedger.builder()
            .dataSource(db.dataSource())
            .owner("worker-2")
            .lease(Duration.ofSeconds(30))
            .clock(Clock.systemUTC())
            .build();
    assertThat(ledger.claim(key).status())
        .as("the dead worker's lease is still live")
        .isEqualTo(Claim.Status.BUSY);

    Claim taken =
        await()
            .atMost(Duration.ofSeconds(30))
            .pollInterval(Duration.ofMillis(200))
            .until(() -> ledger.claim(key), c -> c.status() == Claim.Status.OWNED);
    assertThat(taken.attempt()).isEqualTo(2);
    ledger.complete(taken, provider.charge(taken.idempotencyKey(), "worker-2"));

    Claim late = new Claim(key, Claim.Status.OWNED, deadToken, Instant.now(), 1, null);
    assertThatThrownBy(() -> ledger.complete(late, "receipt-from-the-dead"))
        .isInstanceOf(LeaseLostException.class)
        .hasMessageContaining("lease expired and another worker owns it");

    LedgerEntry entry = ledger.entry(key).orElseThrow();
    assertThat(entry.status()).isEqualTo("COMPLETED");
    assertThat(entry.owner()).isEqualTo("worker-2");
    assertThat(entry.attempts()).isEqualTo(2);
    assertThat(entry.result()).isEqualTo("receipt-" + key);
    assertThat(provider.calls(key)).as("both workers called, with the same key").isEqualTo(2);
    assertThat(provider.charges(key)).as("the provider charged once").isEqualTo(1);
    assertThat(ledger.claim(key).status()).isEqualTo(Claim.Status.COMPLETED);
    assertThat(provider.calls(key)).isEqualTo(2);
  }

  @Test
  void slowWorkerThatLostItsLeaseCannotCompleteOverTheNewOwner() throws Exception {
    MutableClock clock = new MutableClock(Instant.parse("2026-06-01T12:00:00Z"));
    EffectLedger one =
        EffectLedger.builder()
            .dataSource(db.dataSource())
            .owner("one")
            .lease(Duration.ofSeconds(30))
            .clock(clock)
            .build();
    EffectLedger two =
        EffectLedger.builder()
            .dataSource(db.dataSource())
            .owner("two")
            .lease(Duration.ofSeconds(30))
            .clock(clock)
            .build();
    String key = UniqueNames.slot("fenced");

    Claim first = one.claim(key);
    assertThat(first.status()).isEqualTo(Claim.Status.OWNED);
    clock.advance(Duration.ofSeconds(29));
    assertThat(two.claim(key).status()).isEqualTo(Claim.Status.BUSY);
    clock.advance(Duration.ofSeconds(2));
    Claim second = two.claim(key);
    assertThat(second.status()).isEqualTo(Claim.Status.OWNED);

    assertThatThrownBy(() -> one.complete(first, "late")).isInstanceOf(LeaseLostException.class);
    assertThatThrownBy(() -> one.release(first)).isInstanceOf(LeaseLostException.class);
    two.complete(second, "done");
    assertThat(one.claim(key))
        .extracting(Claim::status, Claim::result)
        .containsExactly(Claim.Status.COMPLETED, "done");
  }

  @Test
  void timeoutMarksUnknownAndTheReconcilerDecides() throws Exception {
    EffectLedger ledger =
        EffectLedger.builder()
            .dataSource(db.dataSource())
            .owner("w")
            .lease(Duration.ofSeconds(30))
            .clock(Clock.systemUTC())
            .build();
    String happened = UniqueNames.slot("timeout_charged");
    String notHappened = UniqueNames.slot("timeout_lost");

    // The provider charged, but the answer was lost: ambiguous.
    Claim outcome =
        ledger.perform(
            happened,
            k -> {
              provider.charge(k, "w");
              throw new AmbiguousOutcomeException("no answer within 10 s", null);
            });
    assertThat(outcome.status()).isEqualTo(Claim.Status.UNKNOWN);
    // The request never reached the provider: also ambiguous to the caller.
    ledger.perform(
        notHappened,
        k -> {
          throw new AmbiguousOutcomeException("connect timeout", null);
        });

    // Until reconciled, nobody calls again.
    assertThat(ledger.perform(happened, k -> provider.charge(k, "w")).status())
        .isEqualTo(Claim.Status.UNKNOWN);
    assertThat(provider.calls(happened)).isEqualTo(1);

    int resolved =
        ledger.reconcile(
            (key, attempts, reason) -> {
              String receipt = provider.receipt(key);
              return receipt != null
                  ? new Reconciler.Happened(receipt)
                  : new Reconciler.DidNotHappen();
            });
    assertThat(resolved).isEqualTo(2);

    Claim done = ledger.perform(happened, k -> provider.charge(k, "w"));
    assertThat(done.status()).isEqualTo(Claim.Status.COMPLETED);
    assertThat(done.result()).isEqualTo("receipt-" + happened);
    assertThat(provider.calls(happened))
        .as("never called again after the ambiguous call")
        .isEqualTo(1);
    assertThat(ledger.entry(happened).orElseThrow().outcomeReason())
        .isEqualTo("reconciled: it happened");

    Claim retried = ledger.perform(notHappened, k -> provider.charge(k, "w"));
    assertThat(retried.status()).isEqualTo(Claim.Status.COMPLETED);
    assertThat(retried.attempt()).isEqualTo(2);
    assertThat(provider.calls(notHappened)).isEqualTo(1);
    assertThat(provider.charges(notHappened)).isEqualTo(1);
  }

  @Test
  void transientFailureReleasesForAnotherTry() throws Exception {
    EffectLedger ledger =
        EffectLedger.builder()
            .dataSource(db.dataSource())
            .owner("w")
            .lease(Duration.ofSeconds(30))
            .clock(Clock.systemUTC())
            .build();
    String key = UniqueNames.slot("flaky");
    assertThatThrownBy(
            () ->
                ledger.perform(
                    key,
                    k -> {
                      throw new java.io.IOException("503 from provider");
                    }))
        .isInstanceOf(java.io.IOException.class);
    assertThat(ledger.entry(key).orElseThrow().status()).isEqualTo("RELEASED");
    assertThat(ledger.perform(key, k -> provider.charge(k, "w")).status())
        .isEqualTo(Claim.Status.COMPLETED);
    assertThat(ledger.entry(key).orElseThrow().attempts()).isEqualTo(2);
  }

  private static UUID token(String output) {
    Matcher m = Pattern.compile("token=([0-9a-f-]{36})").matcher(output);
    assertThat(m.find()).as("worker printed its lease token").isTrue();
    return UUID.fromString(m.group(1));
  }
}
