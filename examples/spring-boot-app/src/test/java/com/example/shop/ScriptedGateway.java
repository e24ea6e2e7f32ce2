package com.example.shop;

import dev.courier.core.PermanentError;
import java.net.SocketTimeoutException;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The payment service as the tests script it: accounts starting with "flaky" time out twice, a
 * frozen account is refused for good until it is unfrozen. Counts every call per idempotency key.
 */
class ScriptedGateway implements PaymentGateway {

  final Map<String, AtomicInteger> calls = new ConcurrentHashMap<>();
  final Set<String> frozen = ConcurrentHashMap.newKeySet();

  @Override
  public void charge(String key, String account, long amount) throws Exception {
    int call = calls.computeIfAbsent(key, k -> new AtomicInteger()).incrementAndGet();
    if (frozen.contains(account)) {
      throw new AccountFrozenException(account);
    }
    if (account.startsWith("flaky") && call <= 2) {
      throw new SocketTimeoutException("payment gateway timed out");
    }
  }

  int calls(String key) {
    AtomicInteger n = calls.get(key);
    return n == null ? 0 : n.get();
  }

  /** No retry unfreezes an account. */
  static final class AccountFrozenException extends Exception implements PermanentError {
    AccountFrozenException(String account) {
      super("account " + account + " is frozen");
    }

    @Override
    public String reason() {
      return "account-frozen";
    }
  }
}
