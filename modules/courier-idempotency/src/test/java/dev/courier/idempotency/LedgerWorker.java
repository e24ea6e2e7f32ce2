package dev.courier.idempotency;

import java.time.Clock;
import java.time.Duration;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * Child-JVM worker for {@link EffectLedgerIT}: performs one payment through the ledger. Arguments:
 * JDBC URL, user, password, effect key, lease in milliseconds.
 */
public final class LedgerWorker {

  private LedgerWorker() {}

  public static void main(String[] args) throws Exception {
    PGSimpleDataSource db = new PGSimpleDataSource();
    db.setURL(args[0]);
    db.setUser(args[1]);
    db.setPassword(args[2]);
    PaymentProvider provider = new PaymentProvider(db);
    EffectLedger ledger =
        EffectLedger.builder()
            .dataSource(db)
            .owner("worker-1")
            .lease(Duration.ofMillis(Long.parseLong(args[4])))
            .clock(Clock.systemUTC())
            .build();
    Claim claim = ledger.claim(args[3]);
    System.out.println("claimed " + claim.status() + " token=" + claim.leaseToken());
    String receipt = provider.charge(claim.idempotencyKey(), "worker-1");
    EffectLedger.AFTER_EXTERNAL_CALL_BEFORE_COMPLETE.reach();
    ledger.complete(claim, receipt);
    System.out.println("completed " + receipt);
  }
}
