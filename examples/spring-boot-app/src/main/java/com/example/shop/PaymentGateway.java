package com.example.shop;

/**
 * The external payment service billing calls. Throw a {@code dev.courier.core.PermanentError} for a
 * refusal no retry changes, anything transient (a timeout, a lost connection) otherwise.
 */
public interface PaymentGateway {

  void charge(String idempotencyKey, String account, long amount) throws Exception;
}
