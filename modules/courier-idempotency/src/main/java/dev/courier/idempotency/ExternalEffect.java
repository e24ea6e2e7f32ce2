package dev.courier.idempotency;

/** A call outside the local database, made with the ledger key as its idempotency key. */
@FunctionalInterface
public interface ExternalEffect {

  /**
   * Performs the effect.
   *
   * @return the result to store (a receipt, a message id)
   * @throws AmbiguousOutcomeException when it cannot tell whether the effect happened (a timeout)
   * @throws Exception any other failure: the effect did not happen and may be tried again
   */
  String call(String idempotencyKey) throws Exception;
}
