package com.example.shop;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

/** Stands in for a real payment service. */
@Component
public class LoggingGateway implements PaymentGateway {

  private static final Logger LOG = LoggerFactory.getLogger(LoggingGateway.class);

  @Override
  public void charge(String key, String account, long amount) {
    LOG.info("charged {} to {} ({})", amount, account, key);
  }
}
